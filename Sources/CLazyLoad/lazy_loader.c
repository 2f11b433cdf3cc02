#include "lazy_loader.h"

#include <dlfcn.h>
#include <stdio.h>

static int open_library(FacescanLazyLibrary *l) {
    void *lib = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        if (e) {
            snprintf(l->error, sizeof l->error, "%s", e);
        } else {
            snprintf(l->error, sizeof l->error, "%s: cannot be loaded", l->soname);
        }
        return 0;
    }
    for (size_t i = 0; i < l->count; i++) {
        void *f = dlsym(lib, l->symbols[i].name);
        if (!f) {
            snprintf(l->error, sizeof l->error, "%s has no function %s", l->soname, l->symbols[i].name);
            // Unusable: give the library back and forget the functions already found.
            for (size_t k = 0; k < i; k++) *(void **)l->symbols[k].slot = NULL;
            dlclose(lib);
            return 0;
        }
        *(void **)l->symbols[i].slot = f;
    }
    return 1;
}

const char *facescan_lazy_error(FacescanLazyLibrary *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&library->lock);
        state = __atomic_load_n(&library->state, __ATOMIC_RELAXED);
        if (state == 0) {
            state = open_library(library) ? 1 : 2;
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&library->lock);
    }
    return state == 1 ? NULL : library->error;
}
