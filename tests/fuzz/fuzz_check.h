/*
 * fuzz_check.h - the property every reader must keep on arbitrary bytes,
 * shared by the deterministic mutation test (CTest) and the libFuzzer
 * harness: reading returns either a trace or NULL with a non-empty
 * message, never crashes; an accepted trace can be written as JSON and
 * DOT, and, when it has no read-consistency anomaly, its JSON reads back
 * to an equal trace, and its EDN (when EDN can say it all) to the same
 * history but for names, whose EDN is the same.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include "formats.h"
#include "trace.h"

/* Read data (exactly size bytes, not NUL-terminated) as fmt in mode and
 * check the property.  Returns false with a description in why. */
bool fuzz_check(const char *name, const char *data, size_t size,
                ip_format fmt, ip_mode mode, char *why, size_t n);

#endif
