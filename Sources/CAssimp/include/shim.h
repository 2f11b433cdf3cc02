#include <assimp/cimport.h>
#include <assimp/cexport.h>
#include <assimp/scene.h>
#include <assimp/postprocess.h>

/* The functions above that facescan calls are defined in lazy.c, which opens libassimp on the
 * first call (not linked at build time). Why it could not be opened (the dynamic loader's
 * message), or NULL once it is open; opens it on first call. */
const char *facescan_assimp_loaderror(void);
