/*
 * Prints the interface facts of abi_facts.h from the libvmaf headers it is
 * compiled against, as abi_expected.h's table; compiling at all checks the
 * 33 signatures. How abi_expected.h was made (headers of Netflix libvmaf at
 * commit f85a8536, outside the repository):
 *
 *   git --git-dir=VMAF.git show f85a8536:libvmaf/include/libvmaf/NAME.h > DIR/libvmaf/NAME.h
 *     (libvmaf.h feature.h model.h picture.h libvmaf_cuda.h; version.h from
 *      version.h.in with 3, 2, 0)
 *   cc -std=c11 -I DIR -I tests/libvmaf_compat tests/libvmaf_compat/abi_probe.c -o probe
 *   ./probe > tests/libvmaf_compat/abi_expected.h
 */
#include <stdio.h>

#include <libvmaf/libvmaf.h>
#include <libvmaf/libvmaf_cuda.h>
#include <libvmaf/version.h>

#include "abi_facts.h"

ABI_SIGNATURES

#define PRINT(e) printf("    { \"%s\", %lld },\n", #e, (long long)(e));

int main(void)
{
    printf("/* Printed by abi_probe.c compiled with gcc %d.%d on x86-64 against the public\n"
           " * headers of Netflix libvmaf at commit f85a8536 (version.h: %d.%d.%d);\n"
           " * abi_probe.c says how. */\n", __GNUC__, __GNUC_MINOR__, VMAF_API_VERSION_MAJOR,
           VMAF_API_VERSION_MINOR, VMAF_API_VERSION_PATCH);
    printf("static const struct { const char *fact; long long value; } abi_expected[] = {\n");
    ABI_FACTS(PRINT)
    printf("};\n");
    return 0;
}
