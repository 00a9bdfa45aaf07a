/*
 * fuzz_sniff - ELF and "#!" sniffing over arbitrary file heads.
 *
 * The input is a whole file: its head is handed over in a buffer of
 * exactly its length, and every further read es_sniff_more asks for is
 * served from the input, as the exec path serves it with pread; the
 * rounds stay within ES_SNIFF_ROUNDS and each ask fits the buffer.  What comes
 * out must be one of the kinds, every string NUL-terminated within its
 * field, and consistent with the bytes: only an ELF magic gives an ELF
 * kind, only "#!" gives a script, and a script's interpreter is a word of
 * its first line.
 */
#include <string.h>

#include "es_exec.h"
#include "fuzz.h"

static void
terminated(const char *s, size_t cap)
{
	FZ_ASSERT(memchr(s, '\0', cap) != NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct es_sniff sn;
	unsigned char *head = malloc(size > 0 ? size : 1);
	const char *judge;
	size_t line;

	unsigned char more[ES_SNIFF_HEAD];
	size_t hn = size < ES_SNIFF_HEAD ? size : ES_SNIFF_HEAD, got;
	int rounds = 0;

	memcpy(head, data, size);
	memset(&sn, 0x5a, sizeof(sn));
	es_sniff(head, hn, &sn);
	while (sn.kind == ES_K_ELF_MORE) {
		FZ_ASSERT(++rounds <= ES_SNIFF_ROUNDS);
		FZ_ASSERT(sn.want_len > 0 && sn.want_len <= sizeof(more));
		got = sn.want_off >= size ? 0 : size - sn.want_off;
		if (got > sn.want_len)
			got = sn.want_len;
		memcpy(more, data + sn.want_off, got);
		es_sniff_more(more, got, &sn);
	}
	FZ_ASSERT(sn.kind >= ES_K_OTHER && sn.kind <= ES_K_ELF_FOREIGN);
	if (sn.kind == ES_K_ELF_DYNAMIC || sn.kind == ES_K_ELF_STATIC ||
	    sn.kind == ES_K_ELF_UNKNOWN || sn.kind == ES_K_ELF_FOREIGN)
		FZ_ASSERT(size >= 4 && memcmp(head, "\177ELF", 4) == 0);
	if (size >= 4 && memcmp(head, "\177ELF", 4) == 0)
		FZ_ASSERT(sn.kind != ES_K_SCRIPT);
	/* An ELF that will run (our class, has headers) is never "other". */
	if (sn.kind == ES_K_OTHER && size >= 64 && memcmp(head, "\177ELF", 4) == 0)
		FZ_ASSERT((head[16] | head[17] << 8) != 2 &&
		    (head[16] | head[17] << 8) != 3);	/* ET_EXEC, ET_DYN */
	/* A dynamic ELF always says which loader: the shim must check it. */
	if (sn.kind == ES_K_ELF_DYNAMIC) {
		terminated(sn.interp, sizeof(sn.interp));
		FZ_ASSERT(sn.interp[0] != '\0');
	}
	if (sn.kind == ES_K_SCRIPT) {
		FZ_ASSERT(size >= 2 && head[0] == '#' && head[1] == '!');
		terminated(sn.interp, sizeof(sn.interp));
		terminated(sn.arg, sizeof(sn.arg));
		terminated(sn.judge, sizeof(sn.judge));
		/* The interpreter is on the first line, as the kernel reads it. */
		for (line = 2; line < size && head[line] != '\n'; line++)
			;
		if (sn.interp[0] != '\0')
			FZ_ASSERT(memmem(head, line, sn.interp,
			    strlen(sn.interp)) != NULL);
		FZ_ASSERT(strchr(sn.interp, '\n') == NULL);
		FZ_ASSERT(strchr(sn.arg, '\n') == NULL);
		judge = es_script_judge(&sn);
		FZ_ASSERT(judge != NULL);
		terminated(judge, ES_SHEBANG_MAX);
		(void)es_is_shell(NULL, judge);
		(void)es_is_shell(NULL, sn.interp);
	}
	free(head);
	return 0;
}
