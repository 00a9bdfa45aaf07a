/*
 * fuzz_mark - a message from inside a sandbox, as its outer writes it.
 *
 * Input: a flags byte (bit 0: the outer has a session), then the message
 * as a process inside would send it.  Whatever it holds, es_audit_mark
 * takes it whole or not at all, and what it writes is one line of
 * printable ASCII, one JSON object whose top level has exactly one
 * "inside" (true), one "sandbox" (the outer's) and at most one
 * "session" (the outer's), in that order at its end; marked again, the
 * line is the same line.
 */
#include <string.h>

#include "es_exec.h"
#include "fuzz.h"

#define SANDBOX	4242
#define SESSION	"77.88.abcdef"

/*
 * The top-level keys of one JSON line that es_audit_mark wrote, walked
 * outside strings: how many are named k.  The nesting must come back to
 * 0 exactly at the end, and never go below it.
 */
static int
top_keys(const char *s, size_t n, const char *k)
{
	size_t i, kl = strlen(k);
	int depth = 0, count = 0;
	char prev = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '"') {
			size_t b = ++i;

			while (i < n && s[i] != '"')
				i += s[i] == '\\' ? 2 : 1;
			FZ_ASSERT(i < n);
			if (depth == 1 && (prev == '{' || prev == ',') &&
			    i - b == kl && memcmp(s + b, k, kl) == 0)
				count++;
			prev = '"';
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			depth--;
		FZ_ASSERT(depth >= 0);
		FZ_ASSERT(depth > 0 || i == n - 1);
		prev = c;
	}
	FZ_ASSERT(depth == 0);
	return count;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[ES_LOG_LINE], again[ES_LOG_LINE];
	const char *sess, *tail;
	size_t i, tl;
	long r, r2;

	if (size < 1)
		return 0;
	sess = (data[0] & 1) ? SESSION : NULL;
	r = es_audit_mark((const char *)data + 1, size - 1, SANDBOX, sess, out,
	    sizeof(out));
	if (r == -1)
		return 0;
	FZ_ASSERT(r > 2 && (size_t)r < sizeof(out));
	FZ_ASSERT(out[0] == '{' && out[r - 1] == '\n');
	for (i = 0; i < (size_t)r - 1; i++)
		FZ_ASSERT(out[i] >= 0x20 && out[i] < 0x7f);
	tail = sess ? ",\"inside\":true,\"sandbox\":4242,\"session\":\"" SESSION
	    "\"}\n" : ",\"inside\":true,\"sandbox\":4242}\n";
	tl = strlen(tail);
	FZ_ASSERT((size_t)r > tl && memcmp(out + r - tl, tail, tl) == 0);
	FZ_ASSERT(top_keys(out, (size_t)r - 1, "inside") == 1);
	FZ_ASSERT(top_keys(out, (size_t)r - 1, "sandbox") == 1);
	FZ_ASSERT(top_keys(out, (size_t)r - 1, "session") == (sess ? 1 : 0));
	r2 = es_audit_mark(out, (size_t)r, SANDBOX, sess, again, sizeof(again));
	FZ_ASSERT(r2 == r && memcmp(out, again, (size_t)r) == 0);
	return 0;
}
