#ifndef RETRACE_CRC32C_H
#define RETRACE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU computes CRC-32C in hardware (SSE 4.2 on x86-64, the CRC extension on
/// 64-bit ARM): 1 or 0.
int retrace_crc32c_hardware_available(void);

/// Continues a CRC-32C over `length` bytes at `data`, with the CPU's CRC instructions.
/// `crc` and the result are in the usual form (inverted at both ends, as in
/// `crc = ~update(~crc)`), so that it agrees with any other CRC-32C implementation.
/// Call it only when `retrace_crc32c_hardware_available()` is 1.
uint32_t retrace_crc32c_hardware_update(uint32_t crc, const void *data, size_t length);

#endif
