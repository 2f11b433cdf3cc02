/*
 * libassimp opened on first use (dlopen) instead of at process start: a run that never reads or
 * writes an assimp format (most `facescan process` runs) does not map libassimp, libdraco and
 * libminizip nor pay the dynamic loader's relocations for them. Each assimp function facescan
 * calls is defined here with its header's signature; the first call of any of them opens the
 * library and resolves all of them once. When the library or a function is missing, the calls
 * fail as assimp itself fails (NULL scene, blob or store; 0 formats) and aiGetErrorString()
 * returns the loader's message.
 */
#include "shim.h"

#include <lazy_loader.h>

#ifdef __APPLE__
#define ASSIMP_SONAME "libassimp.dylib"
#else
#define ASSIMP_SONAME "libassimp.so.5"
#endif

#define ASSIMP_FUNCTIONS(X) \
    X(const struct aiScene *, aiApplyPostProcessing, (const struct aiScene *pScene, unsigned int pFlags)) \
    X(struct aiPropertyStore *, aiCreatePropertyStore, (void)) \
    X(const struct aiExportDataBlob *, aiExportSceneToBlob, \
      (const struct aiScene *pScene, const char *pFormatId, unsigned int pPreprocessing)) \
    X(const char *, aiGetErrorString, (void)) \
    X(size_t, aiGetExportFormatCount, (void)) \
    X(const struct aiExportFormatDesc *, aiGetExportFormatDescription, (size_t pIndex)) \
    X(const struct aiScene *, aiImportFileExWithProperties, \
      (const char *pFile, unsigned int pFlags, struct aiFileIO *pFS, const struct aiPropertyStore *pProps)) \
    X(const struct aiScene *, aiImportFileFromMemoryWithProperties, \
      (const char *pBuffer, unsigned int pLength, unsigned int pFlags, const char *pHint, \
       const struct aiPropertyStore *pProps)) \
    X(void, aiReleaseExportBlob, (const struct aiExportDataBlob *pData)) \
    X(void, aiReleaseExportFormatDescription, (const struct aiExportFormatDesc *desc)) \
    X(void, aiReleaseImport, (const struct aiScene *pScene)) \
    X(void, aiReleasePropertyStore, (struct aiPropertyStore *p)) \
    X(void, aiSetImportPropertyInteger, (struct aiPropertyStore * store, const char *szName, int value))

#define POINTER(ret, name, params) static ret(*p_##name) params;
#define SYMBOL(ret, name, params) {#name, &p_##name},
ASSIMP_FUNCTIONS(POINTER)
FACESCAN_LAZY_LIBRARY(library, ASSIMP_SONAME, ASSIMP_FUNCTIONS(SYMBOL));

const char *facescan_assimp_loaderror(void) { return facescan_lazy_error(&library); }

#define OPEN_OR(failure) \
    if (facescan_lazy_error(&library)) return failure

const struct aiScene *aiApplyPostProcessing(const struct aiScene *pScene, unsigned int pFlags) {
    OPEN_OR(0);
    return p_aiApplyPostProcessing(pScene, pFlags);
}
struct aiPropertyStore *aiCreatePropertyStore(void) {
    OPEN_OR(0);
    return p_aiCreatePropertyStore();
}
const struct aiExportDataBlob *aiExportSceneToBlob(
    const struct aiScene *pScene, const char *pFormatId, unsigned int pPreprocessing) {
    OPEN_OR(0);
    return p_aiExportSceneToBlob(pScene, pFormatId, pPreprocessing);
}
const char *aiGetErrorString(void) {
    const char *loadError = facescan_lazy_error(&library);
    if (loadError) return loadError;
    return p_aiGetErrorString();
}
size_t aiGetExportFormatCount(void) {
    OPEN_OR(0);
    return p_aiGetExportFormatCount();
}
const struct aiExportFormatDesc *aiGetExportFormatDescription(size_t pIndex) {
    OPEN_OR(0);
    return p_aiGetExportFormatDescription(pIndex);
}
const struct aiScene *aiImportFileExWithProperties(
    const char *pFile, unsigned int pFlags, struct aiFileIO *pFS, const struct aiPropertyStore *pProps) {
    OPEN_OR(0);
    return p_aiImportFileExWithProperties(pFile, pFlags, pFS, pProps);
}
const struct aiScene *aiImportFileFromMemoryWithProperties(
    const char *pBuffer, unsigned int pLength, unsigned int pFlags, const char *pHint,
    const struct aiPropertyStore *pProps) {
    OPEN_OR(0);
    return p_aiImportFileFromMemoryWithProperties(pBuffer, pLength, pFlags, pHint, pProps);
}
void aiReleaseExportBlob(const struct aiExportDataBlob *pData) {
    OPEN_OR();
    p_aiReleaseExportBlob(pData);
}
void aiReleaseExportFormatDescription(const struct aiExportFormatDesc *desc) {
    OPEN_OR();
    p_aiReleaseExportFormatDescription(desc);
}
void aiReleaseImport(const struct aiScene *pScene) {
    OPEN_OR();
    p_aiReleaseImport(pScene);
}
void aiReleasePropertyStore(struct aiPropertyStore *p) {
    OPEN_OR();
    p_aiReleasePropertyStore(p);
}
void aiSetImportPropertyInteger(struct aiPropertyStore *store, const char *szName, int value) {
    OPEN_OR();
    p_aiSetImportPropertyInteger(store, szName, value);
}
