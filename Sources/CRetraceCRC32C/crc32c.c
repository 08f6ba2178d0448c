// CRC-32C with the CPU's own instructions, for the trace writer's journal and chunk
// checksums and the reader's checks: about 0.1 cycle per byte instead of the table-driven
// Swift fallback's 1 to 2. The target attributes compile just these functions for the
// instruction set extension, and the run-time check keeps other CPUs on the fallback.
#include "crc32c.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>

int retrace_crc32c_hardware_available(void) {
  unsigned int eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
  return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t retrace_crc32c_hardware_update(uint32_t crc, const void *data, size_t length) {
  const unsigned char *p = data;
  uint64_t c = ~crc;
  while (length >= 8) {
    uint64_t word;
    memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
    p += 8;
    length -= 8;
  }
  uint32_t c32 = (uint32_t)c;
  while (length > 0) {
    c32 = _mm_crc32_u8(c32, *p);
    p += 1;
    length -= 1;
  }
  return ~c32;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

int retrace_crc32c_hardware_available(void) { return 1; }

uint32_t retrace_crc32c_hardware_update(uint32_t crc, const void *data, size_t length) {
  const unsigned char *p = data;
  uint32_t c = ~crc;
  while (length >= 8) {
    uint64_t word;
    memcpy(&word, p, 8);
    c = __crc32cd(c, word);
    p += 8;
    length -= 8;
  }
  while (length > 0) {
    c = __crc32cb(c, *p);
    p += 1;
    length -= 1;
  }
  return ~c;
}

#else

int retrace_crc32c_hardware_available(void) { return 0; }

uint32_t retrace_crc32c_hardware_update(uint32_t crc, const void *data, size_t length) {
  (void)data;
  (void)length;
  return crc;
}

#endif
