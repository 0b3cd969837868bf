/* The built-in extractors and the public registry queries. */
#include <errno.h>
#include <string.h>

#include "tvmaf_config.h"
#include "tvmaf_features.h"
#include "core/internal.h"

extern const TvmafExtractor tvmaf_fex_psnr;
extern const TvmafExtractor tvmaf_fex_ciede;
#if TVMAF_HAVE_FEATURE_VIF
extern const TvmafExtractor tvmaf_fex_vif;
#endif
#if TVMAF_HAVE_FEATURE_ADM
extern const TvmafExtractor tvmaf_fex_adm;
#endif
#if TVMAF_HAVE_FEATURE_MOTION
extern const TvmafExtractor tvmaf_fex_motion;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_PSNR
extern const TvmafExtractor tvmaf_fex_float_psnr;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_ANSNR
extern const TvmafExtractor tvmaf_fex_float_ansnr;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_MOMENT
extern const TvmafExtractor tvmaf_fex_float_moment;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_MOTION
extern const TvmafExtractor tvmaf_fex_float_motion;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_VIF
extern const TvmafExtractor tvmaf_fex_float_vif;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_SSIM
extern const TvmafExtractor tvmaf_fex_float_ssim;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_MS_SSIM
extern const TvmafExtractor tvmaf_fex_float_ms_ssim;
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_ADM
extern const TvmafExtractor tvmaf_fex_float_adm;
#endif
#if TVMAF_HAVE_FEATURE_SPEED
extern const TvmafExtractor tvmaf_fex_speed_chroma;
extern const TvmafExtractor tvmaf_fex_speed_temporal;
#endif
#if TVMAF_HAVE_FEATURE_CAMBI
extern const TvmafExtractor tvmaf_fex_cambi;
#endif
#if TVMAF_HAVE_FEATURE_PSNR_HVS
extern const TvmafExtractor tvmaf_fex_psnr_hvs;
#endif
#if TVMAF_HAVE_CUDA
extern const TvmafExtractor tvmaf_fex_psnr_cuda;
extern const TvmafExtractor tvmaf_fex_ciede_cuda;
#endif
#if TVMAF_HAVE_CUDA && TVMAF_HAVE_FEATURE_MOTION
extern const TvmafExtractor tvmaf_fex_motion_cuda;
#endif
#if TVMAF_HAVE_CUDA && TVMAF_HAVE_FEATURE_VIF
extern const TvmafExtractor tvmaf_fex_vif_cuda;
#endif
#if TVMAF_HAVE_CUDA && TVMAF_HAVE_FEATURE_ADM
extern const TvmafExtractor tvmaf_fex_adm_cuda;
#endif

const TvmafExtractor *const tvmaf_extractors[] = {
    &tvmaf_fex_psnr,
    &tvmaf_fex_ciede,
#if TVMAF_HAVE_FEATURE_VIF
    &tvmaf_fex_vif,
#endif
#if TVMAF_HAVE_FEATURE_ADM
    &tvmaf_fex_adm,
#endif
#if TVMAF_HAVE_FEATURE_MOTION
    &tvmaf_fex_motion,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_PSNR
    &tvmaf_fex_float_psnr,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_ANSNR
    &tvmaf_fex_float_ansnr,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_MOMENT
    &tvmaf_fex_float_moment,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_MOTION
    &tvmaf_fex_float_motion,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_VIF
    &tvmaf_fex_float_vif,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_SSIM
    &tvmaf_fex_float_ssim,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_MS_SSIM
    &tvmaf_fex_float_ms_ssim,
#endif
#if TVMAF_HAVE_FEATURE_FLOAT_ADM
    &tvmaf_fex_float_adm,
#endif
#if TVMAF_HAVE_FEATURE_SPEED
    &tvmaf_fex_speed_chroma,
    &tvmaf_fex_speed_temporal,
#endif
#if TVMAF_HAVE_FEATURE_CAMBI
    &tvmaf_fex_cambi,
#endif
#if TVMAF_HAVE_FEATURE_PSNR_HVS
    &tvmaf_fex_psnr_hvs,
#endif
#if TVMAF_HAVE_CUDA
    &tvmaf_fex_psnr_cuda,
    &tvmaf_fex_ciede_cuda,
#endif
#if TVMAF_HAVE_CUDA && TVMAF_HAVE_FEATURE_MOTION
    &tvmaf_fex_motion_cuda,
#endif
#if TVMAF_HAVE_CUDA && TVMAF_HAVE_FEATURE_VIF
    &tvmaf_fex_vif_cuda,
#endif
#if TVMAF_HAVE_CUDA && TVMAF_HAVE_FEATURE_ADM
    &tvmaf_fex_adm_cuda,
#endif
    NULL,
};

/* Distinct names, in the order of the table. */
static const TvmafExtractor *nth_name(unsigned n)
{
    unsigned seen = 0;
    for (unsigned i = 0; tvmaf_extractors[i]; i++) {
        bool dup = false;
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(tvmaf_extractors[j]->name, tvmaf_extractors[i]->name)) dup = true;
        if (dup) continue;
        if (seen++ == n) return tvmaf_extractors[i];
    }
    return NULL;
}

unsigned tvmaf_feature_count(void)
{
    unsigned n = 0;
    while (nth_name(n)) n++;
    return n;
}

const char *tvmaf_feature_name(unsigned i)
{
    const TvmafExtractor *ex = nth_name(i);
    return ex ? ex->name : NULL;
}

const char *tvmaf_feature_backends(unsigned i)
{
    const TvmafExtractor *ex = nth_name(i);
    if (!ex) return NULL;
    const bool cpu = tvmaf_find_extractor(ex->name, TVMAF_BACKEND_CPU) != NULL;
    const bool cuda = tvmaf_find_extractor(ex->name, TVMAF_BACKEND_CUDA) != NULL;
    if (cpu && cuda) return "cpu cuda";
    return cuda ? "cuda" : "cpu";
}

int tvmaf_feature_option(const char *name, unsigned j, TvmafFeatureOptionInfo *info)
{
    if (!name) return -EINVAL;
    const TvmafExtractor *ex = tvmaf_find_extractor(name, TVMAF_BACKEND_CPU);
    if (!ex) ex = tvmaf_find_extractor(name, TVMAF_BACKEND_CUDA);
    if (!ex) return -ENOENT;
    unsigned n = 0;
    while (ex->options && ex->options[n].name) n++;
    if (info && j < n) {
        static const char *const type_name[] = {
            [TVMAF_OPT_BOOL] = "bool", [TVMAF_OPT_INT] = "int",
            [TVMAF_OPT_DOUBLE] = "double", [TVMAF_OPT_STRING] = "string",
        };
        const TvmafOption *o = &ex->options[j];
        *info = (TvmafFeatureOptionInfo){
            .name = o->name, .help = o->help ? o->help : "", .type = type_name[o->type],
            .min = o->min, .max = o->max,
        };
        switch (o->type) {
        case TVMAF_OPT_BOOL: info->def = o->def.b; break;
        case TVMAF_OPT_INT: info->def = o->def.i; break;
        case TVMAF_OPT_DOUBLE: info->def = o->def.d; break;
        case TVMAF_OPT_STRING: info->def_string = o->def.s ? o->def.s : ""; break;
        }
    }
    return (int)n;
}
