/* Pictures (picture.h): libtvmaf pictures in libvmaf's structure. */
#include <errno.h>
#include <string.h>

#include "compat.h"

/* The pixel format enums have the same values (checked at build time). */
_Static_assert((int)VMAF_PIX_FMT_YUV420P == (int)TVMAF_PIX_FMT_YUV420P &&
               (int)VMAF_PIX_FMT_YUV422P == (int)TVMAF_PIX_FMT_YUV422P &&
               (int)VMAF_PIX_FMT_YUV444P == (int)TVMAF_PIX_FMT_YUV444P &&
               (int)VMAF_PIX_FMT_YUV400P == (int)TVMAF_PIX_FMT_YUV400P,
               "pixel formats");

int compat_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt, unsigned bpc,
                         unsigned w, unsigned h, bool clear)
{
    if (!pic) return -EINVAL;
    memset(pic, 0, sizeof(*pic));
    if (pix_fmt == VMAF_PIX_FMT_UNKNOWN || bpc < 8 || bpc > 16) return -EINVAL;
    TvmafPicture tp;
    int err = tvmaf_picture_alloc(&tp, (enum TvmafPixelFormat)pix_fmt, bpc, w, h);
    if (err) return err == -ENOMEM ? -ENOMEM : -EINVAL;
    /* libvmaf's pictures start as zeros; a reused buffer of libtvmaf's
     * cache holds an earlier picture's rows */
    const size_t bytes = bpc > 8 ? 2 : 1;
    for (int p = 0; clear && p < 3; p++)
        if (tp.data[p] && tp.w[p] && tp.h[p])
            memset(tp.data[p], 0, (size_t)tp.stride[p] * (tp.h[p] - 1) + tp.w[p] * bytes);
    compat_picture_from_tvmaf(&tp, pic);
    return 0;
}

void compat_picture_from_tvmaf(const TvmafPicture *tp, VmafPicture *pic)
{
    memset(pic, 0, sizeof(*pic));
    pic->pix_fmt = (enum VmafPixelFormat)tp->pix_fmt;
    pic->bpc = tp->bpc;
    for (int p = 0; p < 3; p++) {
        pic->w[p] = tp->w[p];
        pic->h[p] = tp->h[p];
        pic->stride[p] = tp->stride[p];
        pic->data[p] = tp->w[p] ? tp->data[p] : NULL; /* 4:0:0 has no chroma */
    }
    pic->priv = tp->priv;
    pic->ref = (VmafRef *)tp->priv;
}

int vmaf_picture_alloc(VmafPicture *pic, enum VmafPixelFormat pix_fmt,
                       unsigned bpc, unsigned w, unsigned h)
{
    return compat_picture_alloc(pic, pix_fmt, bpc, w, h, true);
}

bool compat_picture_valid(const VmafPicture *pic)
{
    return pic && pic->priv && (void *)pic->ref == pic->priv;
}

void compat_picture_to_tvmaf(const VmafPicture *pic, TvmafPicture *tp)
{
    memset(tp, 0, sizeof(*tp));
    tp->pix_fmt = (enum TvmafPixelFormat)pic->pix_fmt;
    tp->bpc = pic->bpc;
    for (int p = 0; p < 3; p++) {
        tp->w[p] = pic->w[p];
        tp->h[p] = pic->h[p];
        tp->stride[p] = pic->stride[p];
        tp->data[p] = pic->data[p];
    }
    tp->priv = pic->priv;
}

int vmaf_picture_unref(VmafPicture *pic)
{
    if (!pic || !pic->ref) return -EINVAL;
    if (!compat_picture_valid(pic)) return -EINVAL;
    TvmafPicture tp;
    compat_picture_to_tvmaf(pic, &tp);
    tvmaf_picture_unref(&tp);
    memset(pic, 0, sizeof(*pic));
    return 0;
}
