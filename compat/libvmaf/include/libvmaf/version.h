/*
 * tvmaf's libvmaf drop-in: the libvmaf API version it implements (Netflix
 * libvmaf 3.2.0, commit f85a8536).
 */
#ifndef TVMAF_COMPAT_LIBVMAF_VERSION_H
#define TVMAF_COMPAT_LIBVMAF_VERSION_H

#define VMAF_API_VERSION_MAJOR 3
#define VMAF_API_VERSION_MINOR 2
#define VMAF_API_VERSION_PATCH 0

#endif
