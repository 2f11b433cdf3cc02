/*
 * lib3mf loaded on first use (dlopen) instead of at process start: a process that never reads or
 * writes 3MF (most `facescan process` runs) does not map lib3MF and what it brings (libzip,
 * libcrypto, libbz2) nor pay the dynamic loader's relocations for them. Each function of shim.h
 * is defined here with the same name and signature; the first call of any of them opens the
 * library and resolves all of them once. When the library or one of its functions is missing,
 * every call returns FACESCAN_LIB3MF_UNAVAILABLE and facescan_lib3mf_loaderror() says why.
 * The definitions are hidden: lib3mf's own calls to its exported functions stay inside it.
 */
#include "shim.h"

#include <lazy_loader.h>

#ifdef __APPLE__
#define LIB3MF_SONAME "lib3MF.dylib"
#else
#define LIB3MF_SONAME "lib3MF.so.1"
#endif

#define LIB3MF_FUNCTIONS(X) \
    X(lib3mf_createmodel, (L3Handle *model), (model)) \
    X(lib3mf_release, (L3Handle instance), (instance)) \
    X(lib3mf_getlasterror, (L3Handle instance, unsigned int *code, const char **message), (instance, code, message)) \
    X(lib3mf_model_setunit, (L3Handle model, unsigned int unit), (model, unit)) \
    X(lib3mf_model_getunit, (L3Handle model, unsigned int *unit), (model, unit)) \
    X(lib3mf_model_addmeshobject, (L3Handle model, L3Handle *mesh), (model, mesh)) \
    X(lib3mf_meshobject_setgeometry, (L3Handle mesh, const L3Vertex *vertices, unsigned int vertexCount, const L3Triangle *triangles, unsigned int triangleCount), (mesh, vertices, vertexCount, triangles, triangleCount)) \
    X(lib3mf_object_setnameutf8, (L3Handle object, const char *name), (object, name)) \
    X(lib3mf_model_addbuilditem, (L3Handle model, L3Handle object, const L3Transform *transform, L3Handle *item), (model, object, transform, item)) \
    X(lib3mf_model_getpackagethumbnailattachment, (L3Handle model, int create, L3Handle *attachment), (model, create, attachment)) \
    X(lib3mf_attachment_readfrombuffer, (L3Handle attachment, const unsigned char *buffer, unsigned long long size), (attachment, buffer, size)) \
    X(lib3mf_attachment_getstreamsize, (L3Handle attachment, unsigned long long *size), (attachment, size)) \
    X(lib3mf_attachment_writetobuffer, (L3Handle attachment, unsigned char *buffer, unsigned long long size), (attachment, buffer, size)) \
    X(lib3mf_model_querywriter, (L3Handle model, const char *writerClass, L3Handle *writer), (model, writerClass, writer)) \
    X(lib3mf_writer_getstreamsize, (L3Handle writer, unsigned long long *size), (writer, size)) \
    X(lib3mf_writer_writetobuffer, (L3Handle writer, unsigned char *buffer, unsigned long long size), (writer, buffer, size)) \
    X(lib3mf_model_queryreader, (L3Handle model, const char *readerClass, L3Handle *reader), (model, readerClass, reader)) \
    X(lib3mf_reader_readfrombuffer, (L3Handle reader, const unsigned char *buffer, unsigned long long size), (reader, buffer, size)) \
    X(lib3mf_model_getbuilditems, (L3Handle model, L3Handle *iterator), (model, iterator)) \
    X(lib3mf_builditemiterator_movenext, (L3Handle iterator, int *hasNext), (iterator, hasNext)) \
    X(lib3mf_builditemiterator_getcurrent, (L3Handle iterator, L3Handle *item), (iterator, item)) \
    X(lib3mf_builditem_getobjectresource, (L3Handle item, L3Handle *object), (item, object)) \
    X(lib3mf_builditem_getobjecttransform, (L3Handle item, L3Transform *transform), (item, transform)) \
    X(lib3mf_object_ismeshobject, (L3Handle object, int *isMesh), (object, isMesh)) \
    X(lib3mf_object_iscomponentsobject, (L3Handle object, int *isComponents), (object, isComponents)) \
    X(lib3mf_meshobject_getvertexcount, (L3Handle mesh, unsigned int *count), (mesh, count)) \
    X(lib3mf_meshobject_gettrianglecount, (L3Handle mesh, unsigned int *count), (mesh, count)) \
    X(lib3mf_meshobject_getvertices, (L3Handle mesh, L3Vertex *vertices, unsigned int bufferSize, unsigned int *count), (mesh, vertices, bufferSize, count)) \
    X(lib3mf_meshobject_gettriangleindices, (L3Handle mesh, L3Triangle *triangles, unsigned int bufferSize, unsigned int *count), (mesh, triangles, bufferSize, count)) \
    X(lib3mf_componentsobject_getcomponentcount, (L3Handle components, unsigned int *count), (components, count)) \
    X(lib3mf_componentsobject_getcomponent, (L3Handle components, unsigned int index, L3Handle *component), (components, index, component)) \
    X(lib3mf_component_getobjectresource, (L3Handle component, L3Handle *object), (component, object)) \
    X(lib3mf_component_gettransform, (L3Handle component, L3Transform *transform), (component, transform)) \
    X(lib3mf_object_setuuidutf8, (L3Handle object, const char *uuid), (object, uuid)) \
    X(lib3mf_builditem_setuuidutf8, (L3Handle item, const char *uuid), (item, uuid)) \
    X(lib3mf_model_setbuilduuidutf8, (L3Handle model, const char *uuid), (model, uuid)) \
    X(lib3mf_getspecversion, (unsigned int *major, unsigned int *minor), (major, minor)) \
    X(lib3mf_model_addattachmentutf8, (L3Handle model, const char *uri, const char *relationshipType, L3Handle *attachment), (model, uri, relationshipType, attachment)) \
    X(lib3mf_model_addtexture2dfromattachment, (L3Handle model, L3Handle attachment, L3Handle *texture), (model, attachment, texture)) \
    X(lib3mf_texture2d_setcontenttype, (L3Handle texture, int contentType), (texture, contentType)) \
    X(lib3mf_resource_getresourceid, (L3Handle resource, unsigned int *resourceID), (resource, resourceID)) \
    X(lib3mf_meshobject_createpropertyhandler, (L3Handle mesh, L3Handle *handler), (mesh, handler)) \
    X(lib3mf_propertyhandler_settexturearray, (L3Handle handler, const L3TriangleTexture *textures), (handler, textures)) \
    X(lib3mf_object_createdefaultpropertyhandler, (L3Handle object, L3Handle *handler), (object, handler)) \
    X(lib3mf_defaultpropertyhandler_settexture, (L3Handle handler, unsigned int textureID, float u, float v), (handler, textureID, u, v))

#define POINTER(name, params, args) static int(*p_##name) params;
#define SYMBOL(name, params, args) {#name, &p_##name},
LIB3MF_FUNCTIONS(POINTER)
FACESCAN_LAZY_LIBRARY(library, LIB3MF_SONAME, LIB3MF_FUNCTIONS(SYMBOL));

const char *facescan_lib3mf_loaderror(void) { return facescan_lazy_error(&library); }

#define DEFINE(name, params, args) \
    __attribute__((visibility("hidden"))) int name params { \
        return facescan_lazy_error(&library) ? FACESCAN_LIB3MF_UNAVAILABLE : p_##name args; \
    }
LIB3MF_FUNCTIONS(DEFINE)
