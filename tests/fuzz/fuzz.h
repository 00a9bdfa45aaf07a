/*
 * fuzz.h - what every libFuzzer target here shares: the entry point's
 * prototype and a check that stops the run with a message libFuzzer shows.
 */
#ifndef ES_FUZZ_H
#define ES_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* An invariant that failed is a finding: abort so libFuzzer keeps the input. */
#define FZ_ASSERT(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: invariant failed: %s\n",	\
		    __FILE__, __LINE__, #c);				\
		abort();						\
	}								\
} while (0)

#endif
