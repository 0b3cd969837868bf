/*
 * tvmaf's libvmaf drop-in: pictures.
 *
 * The declarations of libvmaf 3.x's public header of this name (Netflix
 * libvmaf at commit f85a8536), reproduced as interface facts: the enum
 * values and the structure's fields, in their order and types.
 */
#ifndef TVMAF_COMPAT_LIBVMAF_PICTURE_H
#define TVMAF_COMPAT_LIBVMAF_PICTURE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum VmafPixelFormat {
    VMAF_PIX_FMT_UNKNOWN,
    VMAF_PIX_FMT_YUV420P,
    VMAF_PIX_FMT_YUV422P,
    VMAF_PIX_FMT_YUV444P,
    VMAF_PIX_FMT_YUV400P,
};

/* The reference count of a picture's buffer (opaque). */
typedef struct VmafRef VmafRef;

/* Planar YUV: 8-bit samples in bytes, 9 to 16 bits in 16-bit words. The
 * chroma planes of 4:2:0 are ((w+1)/2) x ((h+1)/2), of 4:2:2 ((w+1)/2) x h;
 * strides are in bytes. ref and priv belong to the library. */
typedef struct VmafPicture {
    enum VmafPixelFormat pix_fmt;
    unsigned bpc;
    unsigned w[3], h[3];
    ptrdiff_t stride[3];
    void *data[3];
    VmafRef *ref;
    void *priv;
} VmafPicture;

/* A picture of that format and size, its samples zero. */
int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                       unsigned bpc, unsigned w, unsigned h);

/* Releases the picture (its buffer with the last reference) and clears *pic. */
int vmaf_picture_unref(VmafPicture *pic);

#ifdef __cplusplus
}
#endif

#endif
