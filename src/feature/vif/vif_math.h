/*
 * vif (libvmaf's integer VIF): the arithmetic, written once for the CPU
 * extractor and the CUDA twin.
 *
 * Pipeline of one frame (luma only), four scales:
 *   scale 0 is the input plane; scale s+1 is scale s low-passed with the
 *   filter of scale s+1 and decimated by 2 (even rows and columns, sizes
 *   rounded down). Every image after scale 0 holds 16-bit samples: an 8..16
 *   bit input is brought to 16 bits by the first low-pass.
 *   At every scale the filter of that scale gives local means (mu) and second
 *   moments (xx, yy, xy) of reference and distorted; from these each pixel
 *   contributes integers to four per-scale sums (VifSums); the scale's
 *   num/den come from those sums in double, rounded to float.
 *
 * Filtering is separable, vertical first, then horizontal, with a rounding
 * right shift after each pass (the shifts depend on scale and bit depth, see
 * vif_*_shift below). Borders mirror without repeating the edge sample:
 * index -k reads k, index n-1+k reads n-1-k. The reference pads its buffers
 * that way; reading through mirror_skip_edge() gives the same samples.
 *
 * Every value before the per-pixel statistic is an unsigned integer whose
 * width is chosen, as in the reference, so that nothing wraps: the taps of
 * each filter add up to 65536 and samples are at most 16 bits, so a filtered
 * sample sum is below 2^32 and a filtered sum of products below 2^48.
 * Integer sums are exact, so rows, blocks and threads may be added in any
 * order and grouping (symmetric taps may be paired, too).
 *
 * The per-pixel statistic (vif_pixel) mixes integers and doubles exactly as
 * the reference: the gain g is a double quotient, truncated back to integers
 * where the reference truncates; logarithms come from a 2^15-entry table of
 * round(2048 * log2f(v)) for v in [2^15, 2^16). That table is rebuilt here
 * from the 2048 places where it steps up (VIF_LOG2_STEPS), so no libm call is
 * involved on either side. The steps were produced with glibc's log2f, the
 * reference's own generator, and checked against a 200-bit log2: glibc's
 * log2f is correctly rounded on all but 5 of these arguments, and those 5
 * give the same entry either way, so the table is the one any host's
 * reference builds. It is not round(2048 log2 v) of the exact logarithm:
 * on 38 entries the float rounding of log2f lands on or past the .5.
 */
#ifndef TVMAF_VIF_MATH_H
#define TVMAF_VIF_MATH_H

#ifndef __OPENCL_VERSION__
#include <stdint.h>
#endif

#include "core/hd.h"
#include "feature/common/mirror.h"

/* The per-pixel gain's doubles: an fp64-free program (OpenCL without
 * cl_khr_fp64) forms their bit patterns in integers (numerics/soft_double.h)
 * and reads the gain limit's bits (VifF64) where the host passed a double. */
#if defined(TVMAF_FP64_FREE)
#include "numerics/soft_double.h"
typedef tvmaf_sd VifF64;
#else
typedef double VifF64;
#endif
/* the bits of the gain's eps, 65536 * 1.0e-10 (tests/test_soft_double.c
 * checks them against the host's product) */
#define VIF_EPS_BITS UINT64_C(0x3edb7cdfd9d7bdbb)

#define VIF_N_SCALES 4
/* the widest filter (scale 0) has 17 taps, so at most 8 on each side */
#define VIF_MAX_TAPS 17
#define VIF_MAX_HALF 8

/* Filter of each scale (scale 0 filters the input statistic; scale s > 0
 * filters scale s-1 before decimation and then scale s's statistic). */
#define VIF_FILTER_WIDTHS { 17, 9, 5, 3 }
#define VIF_FILTER_TAPS { \
    { 489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, \
      1640, 935, 489 }, \
    { 1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244 }, \
    { 3571, 16004, 26386, 16004, 3571 }, \
    { 10904, 43728, 10904 } }

/* Host and CUDA only: OpenCL C keeps program-scope data in __constant memory;
 * the OpenCL twin uploads these very arrays from the host. */
#ifndef __OPENCL_VERSION__
static const unsigned vif_filter_width[VIF_N_SCALES] = VIF_FILTER_WIDTHS;
static const uint16_t vif_filter_taps[VIF_N_SCALES][VIF_MAX_TAPS] = VIF_FILTER_TAPS;
#endif

/*
 * Smallest width and height scored. The mirror above reads inside the image
 * only while a scale of n samples has n > half its filter: scale 0 needs
 * w > 8, scale 1 floor(w/2) > 4, scale 2 floor(w/4) > 2 and scale 3
 * floor(w/8) > 1, so w >= 16 (same for h). Below that the reference reads
 * stale buffer contents, which is nothing to reproduce.
 */
#define VIF_MIN_DIM 16

/* "sigma_nsq": a noise variance of 2 (8-bit sample units squared) in the
 * 16.16 fixed point of the sigmas, at every bit depth */
#define VIF_SIGMA_NSQ ((int32_t)(65536 << 1))

/* The log2 table covers v in [2^15, 2^16); entry v - 2^15 is
 * round(2048 * log2f(v)), 30720 at v = 2^15, rising by one at each step. */
#define VIF_LOG2_TABLE_LEN 32768
#define VIF_LOG2_BASE 30720
#define VIF_LOG2_N_STEPS 2048
/* the smallest v at which the entry is VIF_LOG2_BASE + 1 + k, k = 0..2047 */
#define VIF_LOG2_STEPS { \
    32774, 32785, 32796, 32807, 32818, 32830, 32841, 32852, 32863, 32874, 32885, 32896, \
    32907, 32919, 32930, 32941, 32952, 32963, 32974, 32985, 32997, 33008, 33019, 33030, \
    33041, 33053, 33064, 33075, 33086, 33097, 33108, 33120, 33131, 33142, 33153, 33165, \
    33176, 33187, 33198, 33209, 33221, 33232, 33243, 33254, 33266, 33277, 33288, 33300, \
    33311, 33322, 33333, 33345, 33356, 33367, 33379, 33390, 33401, 33412, 33424, 33435, \
    33446, 33458, 33469, 33480, 33492, 33503, 33514, 33526, 33537, 33548, 33560, 33571, \
    33582, 33594, 33605, 33617, 33628, 33639, 33651, 33662, 33674, 33685, 33696, 33708, \
    33719, 33731, 33742, 33753, 33765, 33776, 33788, 33799, 33811, 33822, 33833, 33845, \
    33856, 33868, 33879, 33891, 33902, 33914, 33925, 33937, 33948, 33960, 33971, 33983, \
    33994, 34006, 34017, 34029, 34040, 34052, 34063, 34075, 34086, 34098, 34109, 34121, \
    34133, 34144, 34156, 34167, 34179, 34190, 34202, 34213, 34225, 34237, 34248, 34260, \
    34271, 34283, 34295, 34306, 34318, 34329, 34341, 34353, 34364, 34376, 34388, 34399, \
    34411, 34423, 34434, 34446, 34457, 34469, 34481, 34492, 34504, 34516, 34528, 34539, \
    34551, 34563, 34574, 34586, 34598, 34609, 34621, 34633, 34645, 34656, 34668, 34680, \
    34692, 34703, 34715, 34727, 34739, 34750, 34762, 34774, 34786, 34797, 34809, 34821, \
    34833, 34844, 34856, 34868, 34880, 34892, 34904, 34915, 34927, 34939, 34951, 34963, \
    34974, 34986, 34998, 35010, 35022, 35034, 35046, 35057, 35069, 35081, 35093, 35105, \
    35117, 35129, 35141, 35152, 35164, 35176, 35188, 35200, 35212, 35224, 35236, 35248, \
    35260, 35272, 35284, 35296, 35307, 35319, 35331, 35343, 35355, 35367, 35379, 35391, \
    35403, 35415, 35427, 35439, 35451, 35463, 35475, 35487, 35499, 35511, 35523, 35535, \
    35547, 35559, 35571, 35583, 35595, 35607, 35620, 35632, 35644, 35656, 35668, 35680, \
    35692, 35704, 35716, 35728, 35740, 35752, 35764, 35777, 35789, 35801, 35813, 35825, \
    35837, 35849, 35861, 35874, 35886, 35898, 35910, 35922, 35934, 35947, 35959, 35971, \
    35983, 35995, 36007, 36020, 36032, 36044, 36056, 36068, 36081, 36093, 36105, 36117, \
    36129, 36142, 36154, 36166, 36178, 36191, 36203, 36215, 36227, 36240, 36252, 36264, \
    36277, 36289, 36301, 36313, 36326, 36338, 36350, 36363, 36375, 36387, 36399, 36412, \
    36424, 36436, 36449, 36461, 36473, 36486, 36498, 36511, 36523, 36535, 36548, 36560, \
    36572, 36585, 36597, 36610, 36622, 36634, 36647, 36659, 36672, 36684, 36696, 36709, \
    36721, 36734, 36746, 36759, 36771, 36783, 36796, 36808, 36821, 36833, 36846, 36858, \
    36871, 36883, 36896, 36908, 36921, 36933, 36946, 36958, 36971, 36983, 36996, 37008, \
    37021, 37033, 37046, 37058, 37071, 37083, 37096, 37109, 37121, 37134, 37146, 37159, \
    37171, 37184, 37197, 37209, 37222, 37234, 37247, 37260, 37272, 37285, 37297, 37310, \
    37323, 37335, 37348, 37361, 37373, 37386, 37398, 37411, 37424, 37436, 37449, 37462, \
    37475, 37487, 37500, 37513, 37525, 37538, 37551, 37563, 37576, 37589, 37602, 37614, \
    37627, 37640, 37653, 37665, 37678, 37691, 37704, 37716, 37729, 37742, 37755, 37767, \
    37780, 37793, 37806, 37819, 37831, 37844, 37857, 37870, 37883, 37895, 37908, 37921, \
    37934, 37947, 37960, 37972, 37985, 37998, 38011, 38024, 38037, 38050, 38063, 38075, \
    38088, 38101, 38114, 38127, 38140, 38153, 38166, 38179, 38192, 38204, 38217, 38230, \
    38243, 38256, 38269, 38282, 38295, 38308, 38321, 38334, 38347, 38360, 38373, 38386, \
    38399, 38412, 38425, 38438, 38451, 38464, 38477, 38490, 38503, 38516, 38529, 38542, \
    38555, 38568, 38581, 38594, 38607, 38620, 38634, 38647, 38660, 38673, 38686, 38699, \
    38712, 38725, 38738, 38751, 38765, 38778, 38791, 38804, 38817, 38830, 38843, 38856, \
    38870, 38883, 38896, 38909, 38922, 38935, 38949, 38962, 38975, 38988, 39001, 39015, \
    39028, 39041, 39054, 39067, 39081, 39094, 39107, 39120, 39134, 39147, 39160, 39173, \
    39187, 39200, 39213, 39226, 39240, 39253, 39266, 39280, 39293, 39306, 39319, 39333, \
    39346, 39359, 39373, 39386, 39399, 39413, 39426, 39439, 39453, 39466, 39480, 39493, \
    39506, 39520, 39533, 39546, 39560, 39573, 39587, 39600, 39613, 39627, 39640, 39654, \
    39667, 39680, 39694, 39707, 39721, 39734, 39748, 39761, 39775, 39788, 39802, 39815, \
    39828, 39842, 39855, 39869, 39882, 39896, 39909, 39923, 39936, 39950, 39963, 39977, \
    39991, 40004, 40018, 40031, 40045, 40058, 40072, 40085, 40099, 40113, 40126, 40140, \
    40153, 40167, 40180, 40194, 40208, 40221, 40235, 40249, 40262, 40276, 40289, 40303, \
    40317, 40330, 40344, 40358, 40371, 40385, 40399, 40412, 40426, 40440, 40453, 40467, \
    40481, 40494, 40508, 40522, 40536, 40549, 40563, 40577, 40591, 40604, 40618, 40632, \
    40646, 40659, 40673, 40687, 40701, 40714, 40728, 40742, 40756, 40770, 40783, 40797, \
    40811, 40825, 40839, 40852, 40866, 40880, 40894, 40908, 40922, 40935, 40949, 40963, \
    40977, 40991, 41005, 41019, 41033, 41046, 41060, 41074, 41088, 41102, 41116, 41130, \
    41144, 41158, 41172, 41186, 41200, 41213, 41227, 41241, 41255, 41269, 41283, 41297, \
    41311, 41325, 41339, 41353, 41367, 41381, 41395, 41409, 41423, 41437, 41451, 41465, \
    41479, 41493, 41507, 41521, 41536, 41550, 41564, 41578, 41592, 41606, 41620, 41634, \
    41648, 41662, 41676, 41690, 41705, 41719, 41733, 41747, 41761, 41775, 41789, 41803, \
    41818, 41832, 41846, 41860, 41874, 41888, 41903, 41917, 41931, 41945, 41959, 41974, \
    41988, 42002, 42016, 42030, 42045, 42059, 42073, 42087, 42102, 42116, 42130, 42144, \
    42159, 42173, 42187, 42202, 42216, 42230, 42244, 42259, 42273, 42287, 42302, 42316, \
    42330, 42345, 42359, 42373, 42388, 42402, 42416, 42431, 42445, 42459, 42474, 42488, \
    42503, 42517, 42531, 42546, 42560, 42575, 42589, 42603, 42618, 42632, 42647, 42661, \
    42675, 42690, 42704, 42719, 42733, 42748, 42762, 42777, 42791, 42806, 42820, 42835, \
    42849, 42864, 42878, 42893, 42907, 42922, 42936, 42951, 42965, 42980, 42994, 43009, \
    43024, 43038, 43053, 43067, 43082, 43096, 43111, 43126, 43140, 43155, 43169, 43184, \
    43199, 43213, 43228, 43243, 43257, 43272, 43286, 43301, 43316, 43330, 43345, 43360, \
    43374, 43389, 43404, 43418, 43433, 43448, 43463, 43477, 43492, 43507, 43521, 43536, \
    43551, 43566, 43580, 43595, 43610, 43625, 43639, 43654, 43669, 43684, 43699, 43713, \
    43728, 43743, 43758, 43773, 43787, 43802, 43817, 43832, 43847, 43862, 43876, 43891, \
    43906, 43921, 43936, 43951, 43966, 43981, 43995, 44010, 44025, 44040, 44055, 44070, \
    44085, 44100, 44115, 44130, 44145, 44159, 44174, 44189, 44204, 44219, 44234, 44249, \
    44264, 44279, 44294, 44309, 44324, 44339, 44354, 44369, 44384, 44399, 44414, 44429, \
    44444, 44459, 44474, 44490, 44505, 44520, 44535, 44550, 44565, 44580, 44595, 44610, \
    44625, 44640, 44655, 44671, 44686, 44701, 44716, 44731, 44746, 44761, 44777, 44792, \
    44807, 44822, 44837, 44852, 44868, 44883, 44898, 44913, 44928, 44944, 44959, 44974, \
    44989, 45004, 45020, 45035, 45050, 45065, 45081, 45096, 45111, 45126, 45142, 45157, \
    45172, 45188, 45203, 45218, 45233, 45249, 45264, 45279, 45295, 45310, 45325, 45341, \
    45356, 45371, 45387, 45402, 45418, 45433, 45448, 45464, 45479, 45494, 45510, 45525, \
    45541, 45556, 45572, 45587, 45602, 45618, 45633, 45649, 45664, 45680, 45695, 45711, \
    45726, 45742, 45757, 45772, 45788, 45803, 45819, 45834, 45850, 45866, 45881, 45897, \
    45912, 45928, 45943, 45959, 45974, 45990, 46005, 46021, 46037, 46052, 46068, 46083, \
    46099, 46115, 46130, 46146, 46161, 46177, 46193, 46208, 46224, 46240, 46255, 46271, \
    46287, 46302, 46318, 46334, 46349, 46365, 46381, 46396, 46412, 46428, 46443, 46459, \
    46475, 46491, 46506, 46522, 46538, 46554, 46569, 46585, 46601, 46617, 46633, 46648, \
    46664, 46680, 46696, 46711, 46727, 46743, 46759, 46775, 46791, 46806, 46822, 46838, \
    46854, 46870, 46886, 46902, 46917, 46933, 46949, 46965, 46981, 46997, 47013, 47029, \
    47045, 47061, 47077, 47092, 47108, 47124, 47140, 47156, 47172, 47188, 47204, 47220, \
    47236, 47252, 47268, 47284, 47300, 47316, 47332, 47348, 47364, 47380, 47396, 47412, \
    47428, 47444, 47460, 47477, 47493, 47509, 47525, 47541, 47557, 47573, 47589, 47605, \
    47621, 47637, 47654, 47670, 47686, 47702, 47718, 47734, 47750, 47767, 47783, 47799, \
    47815, 47831, 47848, 47864, 47880, 47896, 47912, 47929, 47945, 47961, 47977, 47994, \
    48010, 48026, 48042, 48059, 48075, 48091, 48107, 48124, 48140, 48156, 48173, 48189, \
    48205, 48221, 48238, 48254, 48270, 48287, 48303, 48319, 48336, 48352, 48369, 48385, \
    48401, 48418, 48434, 48450, 48467, 48483, 48500, 48516, 48533, 48549, 48565, 48582, \
    48598, 48615, 48631, 48648, 48664, 48681, 48697, 48714, 48730, 48747, 48763, 48780, \
    48796, 48813, 48829, 48846, 48862, 48879, 48895, 48912, 48928, 48945, 48961, 48978, \
    48995, 49011, 49028, 49044, 49061, 49078, 49094, 49111, 49127, 49144, 49161, 49177, \
    49194, 49211, 49227, 49244, 49261, 49277, 49294, 49311, 49327, 49344, 49361, 49378, \
    49394, 49411, 49428, 49444, 49461, 49478, 49495, 49511, 49528, 49545, 49562, 49578, \
    49595, 49612, 49629, 49646, 49662, 49679, 49696, 49713, 49730, 49747, 49763, 49780, \
    49797, 49814, 49831, 49848, 49865, 49881, 49898, 49915, 49932, 49949, 49966, 49983, \
    50000, 50017, 50034, 50051, 50067, 50084, 50101, 50118, 50135, 50152, 50169, 50186, \
    50203, 50220, 50237, 50254, 50271, 50288, 50305, 50322, 50339, 50356, 50373, 50390, \
    50408, 50425, 50442, 50459, 50476, 50493, 50510, 50527, 50544, 50561, 50578, 50596, \
    50613, 50630, 50647, 50664, 50681, 50698, 50716, 50733, 50750, 50767, 50784, 50801, \
    50819, 50836, 50853, 50870, 50887, 50905, 50922, 50939, 50956, 50974, 50991, 51008, \
    51025, 51043, 51060, 51077, 51095, 51112, 51129, 51146, 51164, 51181, 51198, 51216, \
    51233, 51250, 51268, 51285, 51303, 51320, 51337, 51355, 51372, 51389, 51407, 51424, \
    51442, 51459, 51476, 51494, 51511, 51529, 51546, 51564, 51581, 51599, 51616, 51633, \
    51651, 51668, 51686, 51703, 51721, 51738, 51756, 51773, 51791, 51809, 51826, 51844, \
    51861, 51879, 51896, 51914, 51931, 51949, 51967, 51984, 52002, 52019, 52037, 52055, \
    52072, 52090, 52107, 52125, 52143, 52160, 52178, 52196, 52213, 52231, 52249, 52266, \
    52284, 52302, 52320, 52337, 52355, 52373, 52390, 52408, 52426, 52444, 52461, 52479, \
    52497, 52515, 52532, 52550, 52568, 52586, 52604, 52621, 52639, 52657, 52675, 52693, \
    52711, 52728, 52746, 52764, 52782, 52800, 52818, 52836, 52853, 52871, 52889, 52907, \
    52925, 52943, 52961, 52979, 52997, 53015, 53033, 53051, 53069, 53087, 53104, 53122, \
    53140, 53158, 53176, 53194, 53212, 53230, 53248, 53266, 53285, 53303, 53321, 53339, \
    53357, 53375, 53393, 53411, 53429, 53447, 53465, 53483, 53501, 53519, 53538, 53556, \
    53574, 53592, 53610, 53628, 53646, 53665, 53683, 53701, 53719, 53737, 53755, 53774, \
    53792, 53810, 53828, 53847, 53865, 53883, 53901, 53919, 53938, 53956, 53974, 53993, \
    54011, 54029, 54047, 54066, 54084, 54102, 54121, 54139, 54157, 54176, 54194, 54212, \
    54231, 54249, 54267, 54286, 54304, 54322, 54341, 54359, 54378, 54396, 54414, 54433, \
    54451, 54470, 54488, 54507, 54525, 54544, 54562, 54580, 54599, 54617, 54636, 54654, \
    54673, 54691, 54710, 54728, 54747, 54765, 54784, 54803, 54821, 54840, 54858, 54877, \
    54895, 54914, 54933, 54951, 54970, 54988, 55007, 55026, 55044, 55063, 55081, 55100, \
    55119, 55137, 55156, 55175, 55193, 55212, 55231, 55250, 55268, 55287, 55306, 55324, \
    55343, 55362, 55381, 55399, 55418, 55437, 55456, 55474, 55493, 55512, 55531, 55550, \
    55568, 55587, 55606, 55625, 55644, 55662, 55681, 55700, 55719, 55738, 55757, 55776, \
    55794, 55813, 55832, 55851, 55870, 55889, 55908, 55927, 55946, 55965, 55984, 56003, \
    56022, 56041, 56059, 56078, 56097, 56116, 56135, 56154, 56173, 56192, 56211, 56230, \
    56250, 56269, 56288, 56307, 56326, 56345, 56364, 56383, 56402, 56421, 56440, 56459, \
    56478, 56498, 56517, 56536, 56555, 56574, 56593, 56612, 56632, 56651, 56670, 56689, \
    56708, 56727, 56747, 56766, 56785, 56804, 56824, 56843, 56862, 56881, 56901, 56920, \
    56939, 56958, 56978, 56997, 57016, 57036, 57055, 57074, 57093, 57113, 57132, 57151, \
    57171, 57190, 57210, 57229, 57248, 57268, 57287, 57306, 57326, 57345, 57365, 57384, \
    57403, 57423, 57442, 57462, 57481, 57501, 57520, 57540, 57559, 57579, 57598, 57618, \
    57637, 57657, 57676, 57696, 57715, 57735, 57754, 57774, 57793, 57813, 57832, 57852, \
    57872, 57891, 57911, 57930, 57950, 57970, 57989, 58009, 58029, 58048, 58068, 58087, \
    58107, 58127, 58146, 58166, 58186, 58206, 58225, 58245, 58265, 58284, 58304, 58324, \
    58344, 58363, 58383, 58403, 58423, 58442, 58462, 58482, 58502, 58522, 58541, 58561, \
    58581, 58601, 58621, 58641, 58660, 58680, 58700, 58720, 58740, 58760, 58780, 58800, \
    58819, 58839, 58859, 58879, 58899, 58919, 58939, 58959, 58979, 58999, 59019, 59039, \
    59059, 59079, 59099, 59119, 59139, 59159, 59179, 59199, 59219, 59239, 59259, 59279, \
    59299, 59319, 59339, 59359, 59380, 59400, 59420, 59440, 59460, 59480, 59500, 59520, \
    59541, 59561, 59581, 59601, 59621, 59641, 59662, 59682, 59702, 59722, 59742, 59763, \
    59783, 59803, 59823, 59844, 59864, 59884, 59904, 59925, 59945, 59965, 59985, 60006, \
    60026, 60046, 60067, 60087, 60107, 60128, 60148, 60168, 60189, 60209, 60230, 60250, \
    60270, 60291, 60311, 60332, 60352, 60372, 60393, 60413, 60434, 60454, 60475, 60495, \
    60516, 60536, 60557, 60577, 60598, 60618, 60639, 60659, 60680, 60700, 60721, 60741, \
    60762, 60783, 60803, 60824, 60844, 60865, 60885, 60906, 60927, 60947, 60968, 60989, \
    61009, 61030, 61051, 61071, 61092, 61113, 61133, 61154, 61175, 61195, 61216, 61237, \
    61258, 61278, 61299, 61320, 61340, 61361, 61382, 61403, 61424, 61444, 61465, 61486, \
    61507, 61528, 61548, 61569, 61590, 61611, 61632, 61653, 61674, 61694, 61715, 61736, \
    61757, 61778, 61799, 61820, 61841, 61862, 61883, 61904, 61925, 61946, 61966, 61987, \
    62008, 62029, 62050, 62071, 62092, 62113, 62134, 62156, 62177, 62198, 62219, 62240, \
    62261, 62282, 62303, 62324, 62345, 62366, 62387, 62408, 62430, 62451, 62472, 62493, \
    62514, 62535, 62557, 62578, 62599, 62620, 62641, 62662, 62684, 62705, 62726, 62747, \
    62769, 62790, 62811, 62832, 62854, 62875, 62896, 62917, 62939, 62960, 62981, 63003, \
    63024, 63045, 63067, 63088, 63109, 63131, 63152, 63174, 63195, 63216, 63238, 63259, \
    63281, 63302, 63323, 63345, 63366, 63388, 63409, 63431, 63452, 63474, 63495, 63517, \
    63538, 63560, 63581, 63603, 63624, 63646, 63667, 63689, 63710, 63732, 63753, 63775, \
    63797, 63818, 63840, 63861, 63883, 63905, 63926, 63948, 63970, 63991, 64013, 64035, \
    64056, 64078, 64100, 64121, 64143, 64165, 64186, 64208, 64230, 64252, 64273, 64295, \
    64317, 64339, 64360, 64382, 64404, 64426, 64448, 64469, 64491, 64513, 64535, 64557, \
    64579, 64601, 64622, 64644, 64666, 64688, 64710, 64732, 64754, 64776, 64798, 64820, \
    64841, 64863, 64885, 64907, 64929, 64951, 64973, 64995, 65017, 65039, 65061, 65083, \
    65105, 65127, 65149, 65172, 65194, 65216, 65238, 65260, 65282, 65304, 65326, 65348, \
    65370, 65392, 65415, 65437, 65459, 65481, 65503, 65525 \
}

#ifndef __OPENCL_VERSION__ /* host only (the table is built on the host) */
static const uint16_t vif_log2_steps[VIF_LOG2_N_STEPS] = VIF_LOG2_STEPS;
#endif

/* Entry for v in [2^15, 2^16): the base plus the number of steps at or below v. */
TVMAF_HD uint16_t vif_log2_entry(const uint16_t *steps, unsigned v)
{
    unsigned lo = 0, hi = VIF_LOG2_N_STEPS;
    while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        if (steps[mid] <= v) lo = mid + 1;
        else hi = mid;
    }
    return (uint16_t)(VIF_LOG2_BASE + lo);
}

/* Fills table[VIF_LOG2_TABLE_LEN] (a device may instead compute one entry per thread). */
TVMAF_HD void vif_log2_table_fill(uint16_t *table, const uint16_t *steps)
{
    for (unsigned i = 0; i < VIF_LOG2_TABLE_LEN; i++)
        table[i] = vif_log2_entry(steps, VIF_LOG2_TABLE_LEN + i);
}

#if defined(__OPENCL_VERSION__)
#define VIF_CLZ32(x) ((int)clz((uint)(x)))
#define VIF_CLZ64(x) ((int)clz((ulong)(x)))
#elif TVMAF_DEVICE_CODE
#define VIF_CLZ32(x) __clz((int)(x))
#define VIF_CLZ64(x) __clzll((long long)(x))
#else
#define VIF_CLZ32(x) __builtin_clz(x)
#define VIF_CLZ64(x) __builtin_clzll(x)
#endif

/* 2048 log2(v) for v >= 2^15 (v has at most 32 bits): the leading 16 bits
 * index the table, the shift adds 2048 per dropped bit. */
TVMAF_HD int32_t vif_log2_32(TVMAF_GLOBAL const uint16_t *table, uint32_t v)
{
    const int k = 16 - VIF_CLZ32(v);
    return table[(v >> k) - VIF_LOG2_TABLE_LEN] + 2048 * k;
}

/* the same for 64-bit v >= 2^17 (the only values it receives) */
TVMAF_HD int32_t vif_log2_64(TVMAF_GLOBAL const uint16_t *table, uint64_t v)
{
    const int k = 48 - VIF_CLZ64(v);
    return table[(unsigned)(v >> k) - VIF_LOG2_TABLE_LEN] + 2048 * k;
}

/* Source row of tap k of an fw-tap vertical pass for output row i of an
 * h-row plane, mirrored at the edges. */
TVMAF_HD int vif_tap_row(unsigned i, unsigned k, unsigned fw, unsigned h)
{
    return mirror_skip_edge((int)i - (int)(fw / 2) + (int)k, (int)h);
}

/* Right shift by `shift` with rounding half up (no rounding term when 0). */
TVMAF_HD uint32_t vif_round_shift32(uint32_t v, unsigned shift)
{
    return shift ? (v + (1u << (shift - 1))) >> shift : v;
}

TVMAF_HD uint32_t vif_round_shift64(uint64_t v, unsigned shift)
{
    return (uint32_t)(shift ? (v + ((uint64_t)1 << (shift - 1))) >> shift : v);
}

/*
 * Shifts after the vertical pass of the statistic at `scale`. At scale 0 the
 * mean comes back to 16 bits (>> bpc: a bpc-bit sample times the 16-bit tap
 * sum) and the moments to 32 bits (>> 2 (bpc - 8), none for 8-bit). Later
 * scales already hold 16-bit samples: both >> 16. The values fit their
 * reference types, uint16 and uint32, without wrapping.
 */
TVMAF_HD unsigned vif_stat_mu_shift(unsigned scale, unsigned bpc)
{
    return scale == 0 ? bpc : 16;
}

TVMAF_HD unsigned vif_stat_sq_shift(unsigned scale, unsigned bpc)
{
    return scale == 0 ? 2 * (bpc - 8) : 16;
}

/* Shift after the vertical pass of the low-pass that makes scale src + 1
 * (the horizontal pass always shifts by 16): the result is 16-bit. */
TVMAF_HD unsigned vif_down_shift(unsigned src_scale, unsigned bpc)
{
    return src_scale == 0 ? bpc : 16;
}

/* Horizontal pass of the low-pass: the next scale's sample. */
TVMAF_HD uint16_t vif_down_sample(uint32_t acc)
{
    return (uint16_t)((acc + 32768u) >> 16);
}

/* Per-scale integer sums. Pixels whose reference variance reaches
 * VIF_SIGMA_NSQ add 2048 log2 terms ("log"); the others add their distorted
 * variance and a count ("lin"). */
typedef struct VifSums {
    int64_t num_log;
    int64_t den_log;
    int64_t num_lin;
    int64_t den_lin;
} VifSums;

TVMAF_HD void vif_sums_add(VifSums *dst, const VifSums *src)
{
    dst->num_log += src->num_log;
    dst->den_log += src->den_log;
    dst->num_lin += src->num_lin;
    dst->den_lin += src->den_lin;
}

/*
 * One pixel of the statistic, from its horizontal-pass sums: mu1, mu2 are the
 * filtered means (16.16, at most 32 bits); xx, yy, xy the filtered second
 * moments before their final >> 16. Adds its contribution to *acc.
 *
 * In two parts: vif_pixel_ref takes what depends on the reference alone (its
 * variance sigma1_sq and the den terms), vif_pixel_pair the rest (the num
 * terms), so a reference shared by several distorted inputs has its part
 * computed once (the CUDA twin's ladder path, vif_tile.h). Each part adds
 * its own fields of VifSums; vif_pixel runs both.
 */
TVMAF_HD int32_t vif_pixel_ref(VifSums *acc, uint32_t mu1, uint64_t xx,
                               TVMAF_GLOBAL const uint16_t *log2_table)
{
    /* the product of means rounded to 32 bits; the moment rounded by >> 16 */
    const uint32_t mu1_sq = (uint32_t)(((uint64_t)mu1 * mu1 + 0x80000000u) >> 32);
    const uint32_t xx_f = (uint32_t)((xx + 32768u) >> 16);
    /* the difference wraps in 32 bits and is read as signed, as the reference does */
    const int32_t sigma1_sq = (int32_t)(xx_f - mu1_sq);
    if (sigma1_sq < VIF_SIGMA_NSQ) {
        acc->den_lin += 1;
        return sigma1_sq;
    }
    /* den: 2048 log2(1 + sigma1_sq / nsq) = 2048 (log2(nsq + sigma1_sq) - 17) */
    /* Added in 32-bit unsigned arithmetic: with samples within the declared
     * depth sigma1_sq < 2^31 - nsq and the sum is the same number; samples
     * above it can bring sigma1_sq near 2^31, where a signed sum would be
     * undefined. The unsigned sum is the wrapped value x86 gives the
     * reference's signed addition, so those inputs keep their score too. */
    acc->den_log += vif_log2_32(log2_table, (uint32_t)VIF_SIGMA_NSQ + (uint32_t)sigma1_sq) -
                    2048 * 17;
    return sigma1_sq;
}

TVMAF_HD void vif_pixel_pair(VifSums *acc, int32_t sigma1_sq, uint32_t mu1, uint32_t mu2,
                             uint64_t yy, uint64_t xy, TVMAF_GLOBAL const uint16_t *log2_table,
                             VifF64 gain_limit)
{
    const uint32_t mu2_sq = (uint32_t)(((uint64_t)mu2 * mu2 + 0x80000000u) >> 32);
    const uint32_t mu1_mu2 = (uint32_t)(((uint64_t)mu1 * mu2 + 0x80000000u) >> 32);
    const uint32_t yy_f = (uint32_t)((yy + 32768u) >> 16);
    const uint32_t xy_f = (uint32_t)((xy + 32768u) >> 16);

    /* wrapped in 32 bits and read as signed, as sigma1_sq */
    int32_t sigma2_sq = (int32_t)(yy_f - mu2_sq);
    const int32_t sigma12 = (int32_t)(xy_f - mu1_mu2);
    if (sigma2_sq < 0) sigma2_sq = 0;

    if (sigma1_sq < VIF_SIGMA_NSQ) {
        acc->num_lin += sigma2_sq;
        return;
    }
    if (sigma12 <= 0 || sigma2_sq <= 0) return;

    /* num: 2048 log2((sv_sq + nsq + g^2 sigma1_sq) / (sv_sq + nsq)), with the
     * gain g in double and the terms truncated to integers */
#if defined(TVMAF_FP64_FREE)
    const tvmaf_sd eps = VIF_EPS_BITS;
    const tvmaf_sd s12 = tvmaf_sd_from_int32(sigma12), s1 = tvmaf_sd_from_int32(sigma1_sq);
    const tvmaf_sd g = tvmaf_sd_div(s12, tvmaf_sd_add(s1, eps));
    const tvmaf_sd sv = tvmaf_sd_sub(tvmaf_sd_from_int32(sigma2_sq), tvmaf_sd_mul(g, s12));
    const int32_t sv_sq = tvmaf_sd_lt(sv, 0) ? 0 : tvmaf_sd_to_int32(sv);
    const tvmaf_sd gl = tvmaf_sd_lt(g, gain_limit) ? g : gain_limit;
    const uint32_t noise = (uint32_t)sv_sq + (uint32_t)VIF_SIGMA_NSQ;
    const int64_t signal = tvmaf_sd_to_int64(tvmaf_sd_mul(tvmaf_sd_mul(gl, gl), s1)) + noise;
#else
    const double eps = 65536 * 1.0e-10;
    const double g = (double)sigma12 / ((double)sigma1_sq + eps);
    /* truncated to an integer, negatives clamped to 0: the clamp comes first
     * so that no value below INT32_MIN is converted (undefined in C; x86
     * gives INT32_MIN, which the reference then clamps to 0 all the same).
     * The value is at most sigma2_sq, so the conversion is in range. */
    const double sv = (double)sigma2_sq - g * (double)sigma12;
    const int32_t sv_sq = sv < 0.0 ? 0 : (int32_t)sv;
    const double gl = g < gain_limit ? g : gain_limit;
    /* unsigned, as above: sv_sq + nsq can pass 2^31 - 1 only on samples
     * above the declared depth, and wraps there as the reference's int */
    const uint32_t noise = (uint32_t)sv_sq + (uint32_t)VIF_SIGMA_NSQ;
    const int64_t signal = (int64_t)(gl * gl * (double)sigma1_sq) + noise;
#endif
    acc->num_log += vif_log2_64(log2_table, (uint64_t)signal) - vif_log2_64(log2_table, noise);
}

TVMAF_HD void vif_pixel(VifSums *acc, uint32_t mu1, uint32_t mu2, uint64_t xx, uint64_t yy,
                        uint64_t xy, TVMAF_GLOBAL const uint16_t *log2_table,
                        VifF64 gain_limit)
{
    vif_pixel_pair(acc, vif_pixel_ref(acc, mu1, xx, log2_table), mu1, mu2, yy, xy, log2_table,
                   gain_limit);
}

/*
 * Tap sums at one position, for code that filters position by position (the
 * CUDA twin's tiles, vif_tile.h): v points at the sample of tap 0, the others
 * follow `step` elements apart. The CPU extractor's vectorised row passes
 * compute the same integers column-block by column-block (a 48-bit moment as
 * two 32-bit halves); an integer sum has one value whatever its grouping.
 */

/* sum of taps[k] * v[k step] over 16-bit samples: below 65536 * 65535 < 2^32 */
TVMAF_HD uint32_t vif_filter_16(TVMAF_LOCAL const uint16_t *v, int step,
                                TVMAF_GLOBAL const uint16_t *taps, unsigned fw)
{
    uint32_t a = 0;
    for (unsigned k = 0; k < fw; k++) a += (uint32_t)taps[k] * v[(int)k * step];
    return a;
}

/* sum of taps[k] * v[k step] over 32-bit values (moments): below 2^48 */
TVMAF_HD uint64_t vif_filter_32(TVMAF_LOCAL const uint32_t *v, int step,
                                TVMAF_GLOBAL const uint16_t *taps, unsigned fw)
{
    uint64_t a = 0;
    for (unsigned k = 0; k < fw; k++) a += (uint64_t)taps[k] * v[(int)k * step];
    return a;
}

/* Vertical-pass sums of the second moments of reference x and distorted y
 * (16-bit samples: a product has 32 bits, a sum 48). */
TVMAF_HD void vif_moments_16(TVMAF_LOCAL const uint16_t *x, TVMAF_LOCAL const uint16_t *y,
                             int step, TVMAF_GLOBAL const uint16_t *taps, unsigned fw,
                             uint64_t *xx, uint64_t *yy, uint64_t *xy)
{
    uint64_t axx = 0, ayy = 0, axy = 0;
    for (unsigned k = 0; k < fw; k++) {
        const uint32_t a = x[(int)k * step], b = y[(int)k * step], c = taps[k];
        axx += (uint64_t)c * (a * a);
        ayy += (uint64_t)c * (b * b);
        axy += (uint64_t)c * (a * b);
    }
    *xx = axx;
    *yy = ayy;
    *xy = axy;
}

/* The same for 8-bit samples (held in 16-bit slots): a product has 16 bits
 * and a sum stays below 65536 * 255^2 < 2^32. */
TVMAF_HD void vif_moments_8(TVMAF_LOCAL const uint16_t *x, TVMAF_LOCAL const uint16_t *y,
                            int step, TVMAF_GLOBAL const uint16_t *taps, unsigned fw,
                            uint32_t *xx, uint32_t *yy, uint32_t *xy)
{
    uint32_t axx = 0, ayy = 0, axy = 0;
    for (unsigned k = 0; k < fw; k++) {
        const uint32_t a = x[(int)k * step], b = y[(int)k * step], c = taps[k];
        axx += c * (a * a);
        ayy += c * (b * b);
        axy += c * (a * b);
    }
    *xx = axx;
    *yy = ayy;
    *xy = axy;
}

/* One second moment, sum of taps[k] * x[k step] * y[k step] (x == y for a
 * variance), for the passes that take the reference's and the pair's
 * moments apart: 16-bit samples (below 2^48), and 8-bit ones (below 2^32). */
TVMAF_HD uint64_t vif_moment_16(TVMAF_LOCAL const uint16_t *x, TVMAF_LOCAL const uint16_t *y,
                                int step, TVMAF_GLOBAL const uint16_t *taps, unsigned fw)
{
    uint64_t a = 0;
    for (unsigned k = 0; k < fw; k++) {
        const uint32_t p = x[(int)k * step], q = y[(int)k * step];
        a += (uint64_t)taps[k] * (p * q);
    }
    return a;
}

TVMAF_HD uint32_t vif_moment_8(TVMAF_LOCAL const uint16_t *x, TVMAF_LOCAL const uint16_t *y,
                               int step, TVMAF_GLOBAL const uint16_t *taps, unsigned fw)
{
    uint32_t a = 0;
    for (unsigned k = 0; k < fw; k++) {
        const uint32_t p = x[(int)k * step], q = y[(int)k * step];
        a += (uint32_t)taps[k] * (p * q);
    }
    return a;
}

#if !defined(TVMAF_FP64_FREE)
/* A scale's num and den (the reference stores them as float). */
TVMAF_HD void vif_num_den(const VifSums *s, float *num, float *den)
{
    *num = (float)((double)s->num_log / 2048.0 +
                   ((double)s->den_lin - ((double)s->num_lin / 16384.0) / 65025.0));
    *den = (float)((double)s->den_log / 2048.0 + (double)s->den_lin);
}
#endif

#endif
