/*
 * The dlopen loader the optional C libraries share (CAssimp, CLib3MF): each lists the functions it
 * calls in a FacescanLazyLibrary; the first call of any of them opens the library and resolves them
 * all once (thread-safe), so a library that is missing, or lacks a function, fails the same way and
 * with the same words whichever it is.
 */
#ifndef FACESCAN_LAZY_LOADER_H
#define FACESCAN_LAZY_LOADER_H

#include <pthread.h>
#include <stddef.h>

/// One function to resolve: its exported name and the address of the function pointer that
/// receives it (the POSIX `*(void **)&pointer = dlsym(...)` idiom).
typedef struct {
    const char *name;
    void *slot;
} FacescanLazySymbol;

/// A library opened on first use: its file name, the functions to resolve, and the outcome.
typedef struct {
    const char *soname;
    const FacescanLazySymbol *symbols;
    size_t count;
    pthread_mutex_t lock;
    int state; /* 0 not tried, 1 loaded, 2 failed (read and written atomically) */
    char error[512];
} FacescanLazyLibrary;

/// Defines `static FacescanLazyLibrary library` for `soname`, resolving the FacescanLazySymbol
/// initialisers that follow (`{"name", &pointer}, ...`).
#define FACESCAN_LAZY_LIBRARY(library, soname, ...) \
    static const FacescanLazySymbol library##_symbols[] = {__VA_ARGS__}; \
    static FacescanLazyLibrary library = { \
        (soname), library##_symbols, sizeof library##_symbols / sizeof *library##_symbols, \
        PTHREAD_MUTEX_INITIALIZER, 0, ""}

/// Opens the library and resolves every symbol into its slot on the first call; NULL when all were
/// found, otherwise why not (the loader's message, or "SONAME has no function NAME"), every time.
const char *facescan_lazy_error(FacescanLazyLibrary *library);

#endif
