/*
 * fuzz_hidecfg - what makes a build configuration hold a credential
 * (es_hide_secret_in), over any bytes.
 *
 * The text is handed over in a buffer of exactly its length, without a
 * NUL, so reading past it is caught.  The sandbox shows the file when it
 * says no: a credential it found must stay found with an ordinary line
 * before it and one after it, as a real file holds other settings around
 * it (on the next line number, or earlier: what follows may complete an
 * element that names one).
 */
#include <string.h>

#include "es_hide.h"
#include "fuzz.h"

static int
holds(const char *pre, const uint8_t *t, size_t n, const char *post,
    unsigned *line)
{
	size_t a = strlen(pre), b = strlen(post);
	char *buf = malloc(a + n + b + 1);
	const char *what = (const char *)1;
	unsigned l = 0;
	int r;

	memcpy(buf, pre, a);
	memcpy(buf + a, t, n);
	memcpy(buf + a + n, post, b);
	r = es_hide_secret_in(NULL, buf, a + n + b, &what, &l);
	FZ_ASSERT(r == 0 || r == 1);
	FZ_ASSERT(what == NULL || (r == 1 && what[0] != '\0'));
	FZ_ASSERT(r == 0 || l >= 1);
	free(buf);
	*line = l;
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned line, l2;

	if (!holds("", data, size, "", &line))
		return 0;
	FZ_ASSERT(holds("org.gradle.parallel=true\n", data, size,
	    "\nmirror=https://m.example.org/\n", &l2));
	FZ_ASSERT(l2 >= 2 && l2 <= line + 1);
	return 0;
}
