#ifndef FACESCAN_LIB3MF_SHIM_H
#define FACESCAN_LIB3MF_SHIM_H
/*
 * The part of lib3mf 1.8's plain C interface (Model/COM/NMR_DLLInterfaces.h, C linkage) that
 * facescan uses. That header is C++ (a namespace around extern "C"), so the prototypes are
 * restated here with C types of the same layout: handles are void *, DWORD is unsigned int,
 * BOOL is int, ULONG64 is unsigned long long, and the three packed structs below match
 * MODELMESHVERTEX, MODELMESHTRIANGLE and MODELTRANSFORM. Every function returns 0 on success.
 * They are defined in lazy.c, which opens lib3mf on the first call (not linked at build time).
 */
typedef void *L3Handle;
typedef struct { float position[3]; } L3Vertex;
typedef struct { unsigned int indices[3]; } L3Triangle;
typedef struct { float fields[3][4]; } L3Transform;
/* MODELMESHTEXTURE2D: a triangle's texture (resource id) and its corners' u and v. */
typedef struct { unsigned int textureID; float u[3]; float v[3]; } L3TriangleTexture;
int lib3mf_createmodel(L3Handle *model);
int lib3mf_release(L3Handle instance);
int lib3mf_getlasterror(L3Handle instance, unsigned int *code, const char **message);
int lib3mf_model_setunit(L3Handle model, unsigned int unit);
int lib3mf_model_getunit(L3Handle model, unsigned int *unit);
int lib3mf_model_addmeshobject(L3Handle model, L3Handle *mesh);
int lib3mf_meshobject_setgeometry(L3Handle mesh, const L3Vertex *vertices, unsigned int vertexCount, const L3Triangle *triangles, unsigned int triangleCount);
int lib3mf_object_setnameutf8(L3Handle object, const char *name);
int lib3mf_model_addbuilditem(L3Handle model, L3Handle object, const L3Transform *transform, L3Handle *item);
int lib3mf_model_getpackagethumbnailattachment(L3Handle model, int create, L3Handle *attachment);
int lib3mf_attachment_readfrombuffer(L3Handle attachment, const unsigned char *buffer, unsigned long long size);
int lib3mf_attachment_getstreamsize(L3Handle attachment, unsigned long long *size);
int lib3mf_attachment_writetobuffer(L3Handle attachment, unsigned char *buffer, unsigned long long size);
int lib3mf_model_querywriter(L3Handle model, const char *writerClass, L3Handle *writer);
int lib3mf_writer_getstreamsize(L3Handle writer, unsigned long long *size);
int lib3mf_writer_writetobuffer(L3Handle writer, unsigned char *buffer, unsigned long long size);
int lib3mf_model_queryreader(L3Handle model, const char *readerClass, L3Handle *reader);
int lib3mf_reader_readfrombuffer(L3Handle reader, const unsigned char *buffer, unsigned long long size);
int lib3mf_model_getbuilditems(L3Handle model, L3Handle *iterator);
int lib3mf_builditemiterator_movenext(L3Handle iterator, int *hasNext);
int lib3mf_builditemiterator_getcurrent(L3Handle iterator, L3Handle *item);
int lib3mf_builditem_getobjectresource(L3Handle item, L3Handle *object);
int lib3mf_builditem_getobjecttransform(L3Handle item, L3Transform *transform);
int lib3mf_object_ismeshobject(L3Handle object, int *isMesh);
int lib3mf_object_iscomponentsobject(L3Handle object, int *isComponents);
int lib3mf_meshobject_getvertexcount(L3Handle mesh, unsigned int *count);
int lib3mf_meshobject_gettrianglecount(L3Handle mesh, unsigned int *count);
int lib3mf_meshobject_getvertices(L3Handle mesh, L3Vertex *vertices, unsigned int bufferSize, unsigned int *count);
int lib3mf_meshobject_gettriangleindices(L3Handle mesh, L3Triangle *triangles, unsigned int bufferSize, unsigned int *count);
int lib3mf_componentsobject_getcomponentcount(L3Handle components, unsigned int *count);
int lib3mf_componentsobject_getcomponent(L3Handle components, unsigned int index, L3Handle *component);
int lib3mf_component_getobjectresource(L3Handle component, L3Handle *object);
int lib3mf_component_gettransform(L3Handle component, L3Transform *transform);

int lib3mf_object_setuuidutf8(L3Handle object, const char *uuid);
int lib3mf_builditem_setuuidutf8(L3Handle item, const char *uuid);
int lib3mf_model_setbuilduuidutf8(L3Handle model, const char *uuid);
int lib3mf_getspecversion(unsigned int *major, unsigned int *minor);

/* Textures (the materials extension): an attachment holding the image, a texture2d resource on
 * it, and the mesh's per-triangle texture coordinates through a property handler. */
int lib3mf_model_addattachmentutf8(L3Handle model, const char *uri, const char *relationshipType, L3Handle *attachment);
int lib3mf_model_addtexture2dfromattachment(L3Handle model, L3Handle attachment, L3Handle *texture);
int lib3mf_texture2d_setcontenttype(L3Handle texture, int contentType);
int lib3mf_resource_getresourceid(L3Handle resource, unsigned int *resourceID);
int lib3mf_meshobject_createpropertyhandler(L3Handle mesh, L3Handle *handler);
int lib3mf_propertyhandler_settexturearray(L3Handle handler, const L3TriangleTexture *textures);
int lib3mf_object_createdefaultpropertyhandler(L3Handle object, L3Handle *handler);
int lib3mf_defaultpropertyhandler_settexture(L3Handle handler, unsigned int textureID, float u, float v);

/* What every function above returns when lib3mf could not be loaded (lazy.c). */
#define FACESCAN_LIB3MF_UNAVAILABLE (-1)
/* Why lib3mf could not be loaded (the dynamic loader's message), or NULL once it is loaded.
 * Loads it on first call. */
const char *facescan_lib3mf_loaderror(void);
#endif
