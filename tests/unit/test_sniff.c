/*
 * test_sniff.c - what the exec path believes about a file, from its head:
 * real binaries of this machine, hand-made ELF headers and "#!" lines.
 */
#include <elf.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "es_exec.h"

static int
sniff_file(const char *path, struct es_sniff *s)
{
	unsigned char head[ES_SNIFF_HEAD];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, head, sizeof(head));
	close(fd);
	es_sniff(head, n > 0 ? (size_t)n : 0, s);
	return 0;
}

static void
real_dynamic_binary(void **state)
{
	struct es_sniff s;

	(void)state;
	assert_int_equal(sniff_file("/bin/sh", &s), 0);
	assert_int_equal(s.kind, ES_K_ELF_DYNAMIC);
	assert_int_equal(sniff_file("/usr/bin/env", &s), 0);
	assert_int_equal(s.kind, ES_K_ELF_DYNAMIC);
	/* The caller compares it with its own loader. */
	assert_int_equal(s.interp[0], '/');
	assert_non_null(strstr(s.interp, "ld-"));
}

static void
real_static_binary(void **state)
{
	struct es_sniff s;

	(void)state;
	/* Built by the Makefile with -static on purpose. */
	assert_int_equal(sniff_file("build/progs/static_hello", &s), 0);
	assert_int_equal(s.kind, ES_K_ELF_STATIC);
	assert_true(s.program);
}

/*
 * What the exec path does with a file: es_sniff of its head, then every
 * further read es_sniff_more asks for, from a memory image of the file.
 */
static int
sniff_image(const unsigned char *img, size_t len, struct es_sniff *s)
{
	unsigned char buf[ES_SNIFF_HEAD];
	size_t n, rounds = 0;

	n = len < sizeof(buf) ? len : sizeof(buf);
	memcpy(buf, img, n);
	es_sniff(buf, n, s);
	while (s->kind == ES_K_ELF_MORE) {
		assert_true(++rounds <= ES_SNIFF_ROUNDS);
		assert_true(s->want_len > 0 && s->want_len <= sizeof(buf));
		memset(buf, 0xee, sizeof(buf));
		n = s->want_off >= len ? 0 : len - s->want_off;
		if (n > s->want_len)
			n = s->want_len;
		memcpy(buf, img + s->want_off, n);
		es_sniff_more(buf, n, s);
	}
	return (int)rounds;
}

#define LOADER	"/lib64/ld-linux-x86-64.so.2"

/* A minimal 64-bit header with n program headers; interp marks one PT_INTERP. */
static size_t
make_elf(unsigned char *buf, size_t cap, int nph, int interp, int class,
    int machine)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	memset(buf, 0, cap);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = (unsigned char)class;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = (Elf64_Half)machine;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = (Elf64_Half)nph;
	memcpy(buf, &eh, sizeof(eh));
	for (i = 0; i < nph; i++) {
		memset(&ph, 0, sizeof(ph));
		ph.p_type = (interp && i == nph - 1) ? PT_INTERP : PT_LOAD;
		/* The loader's path right after the program headers. */
		if (ph.p_type == PT_INTERP) {
			ph.p_offset = sizeof(eh) + (size_t)nph * sizeof(ph);
			ph.p_filesz = sizeof(LOADER);
			if (ph.p_offset + sizeof(LOADER) <= cap)
				memcpy(buf + ph.p_offset, LOADER, sizeof(LOADER));
		}
		if (sizeof(eh) + (size_t)(i + 1) * sizeof(ph) <= cap)
			memcpy(buf + sizeof(eh) + (size_t)i * sizeof(ph), &ph, sizeof(ph));
	}
	return sizeof(eh) + (size_t)nph * sizeof(ph) + (interp ? sizeof(LOADER) : 0);
}

static void
crafted_elf(void **state)
{
	unsigned char buf[4096];
	struct es_sniff s;
	size_t n;

	(void)state;
	n = make_elf(buf, sizeof(buf), 4, 1, ELFCLASS64, EM_X86_64);
	es_sniff(buf, n, &s);
	assert_int_equal(s.kind, ES_K_ELF_DYNAMIC);
	assert_string_equal(s.interp, LOADER);
	/* The loader's path cut off by the end of the head: read on. */
	es_sniff(buf, n - 4, &s);
	assert_int_equal(s.kind, ES_K_ELF_MORE);
	sniff_image(buf, n, &s);
	assert_int_equal(s.kind, ES_K_ELF_DYNAMIC);
	/* ... and by the end of the file: unknown. */
	sniff_image(buf, n - 4, &s);
	assert_int_equal(s.kind, ES_K_ELF_UNKNOWN);
	n = make_elf(buf, sizeof(buf), 4, 0, ELFCLASS64, EM_X86_64);
	es_sniff(buf, n, &s);
	assert_int_equal(s.kind, ES_K_ELF_STATIC);
	/* Program headers beyond what was read: ask for them, never "dynamic". */
	n = make_elf(buf, sizeof(buf), 40, 1, ELFCLASS64, EM_X86_64);
	es_sniff(buf, ES_SNIFF_HEAD, &s);
	assert_int_equal(s.kind, ES_K_ELF_MORE);
	assert_true(s.want_off + s.want_len > ES_SNIFF_HEAD);
	/* A 32-bit or foreign-machine program cannot load a 64-bit shim. */
	n = make_elf(buf, sizeof(buf), 2, 1, ELFCLASS32, EM_X86_64);
	es_sniff(buf, n, &s);
	assert_int_equal(s.kind, ES_K_ELF_FOREIGN);
	n = make_elf(buf, sizeof(buf), 2, 1, ELFCLASS64, EM_S390);
	es_sniff(buf, n, &s);
	assert_int_equal(s.kind, ES_K_ELF_FOREIGN);
	/* Truncated right after the magic. */
	es_sniff(buf, 6, &s);
	assert_int_not_equal(s.kind, ES_K_ELF_DYNAMIC);
}

static void
huge_phoff_does_not_wrap(void **state)
{
	unsigned char buf[512];
	struct es_sniff s;
	Elf64_Ehdr eh;

	(void)state;
	make_elf(buf, sizeof(buf), 1, 1, ELFCLASS64, EM_X86_64);
	memcpy(&eh, buf, sizeof(eh));
	eh.e_phoff = UINT64_MAX - 8;
	memcpy(buf, &eh, sizeof(eh));
	es_sniff(buf, sizeof(buf), &s);
	assert_int_equal(s.kind, ES_K_ELF_UNKNOWN);
}

#define FAR_LEN		(2u << 20)
#define FAR_PHOFF	(1536u << 10)	/* 1.5 MiB in, as postject leaves it */

/*
 * A program laid out like Copilot CLI's single-executable app: ELF header
 * first, loader path at 0x350, nph program headers far in, a dynamic
 * section (flags1 in DT_FLAGS_1, unless 0) further still.
 */
static unsigned char *
far_elf(int nph, int interp, unsigned int interp_at, int type, unsigned long flags1)
{
	unsigned char *img = calloc(1, FAR_LEN);
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Dyn dyn[3];
	unsigned int dyn_at = FAR_PHOFF + 65536;
	int i;

	assert_non_null(img);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = (Elf64_Half)type;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = FAR_PHOFF;
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = (Elf64_Half)nph;
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + interp_at, LOADER, interp_at + sizeof(LOADER) <= FAR_LEN ?
	    sizeof(LOADER) : FAR_LEN - interp_at);
	memset(dyn, 0, sizeof(dyn));
	dyn[0].d_tag = DT_FLAGS_1;
	dyn[0].d_un.d_val = flags1;
	if (flags1 == 0)
		dyn[0].d_tag = DT_DEBUG;
	memcpy(img + dyn_at, dyn, sizeof(dyn));
	for (i = 0; i < nph; i++) {
		memset(&ph, 0, sizeof(ph));
		ph.p_type = PT_LOAD;
		if (i == nph - 1 && interp) {
			ph.p_type = PT_INTERP;
			ph.p_offset = interp_at;
			ph.p_filesz = sizeof(LOADER);
		} else if (i == nph - 2) {
			ph.p_type = PT_DYNAMIC;
			ph.p_offset = dyn_at;
			ph.p_filesz = sizeof(dyn);
		}
		memcpy(img + FAR_PHOFF + (size_t)i * sizeof(ph), &ph, sizeof(ph));
	}
	return img;
}

/* The kernel reads program headers wherever e_phoff says: so does the judge. */
static void
far_program_headers(void **state)
{
	struct es_sniff s;
	unsigned char *img;

	(void)state;
	/* Copilot CLI: 15 headers 46 MB in, the loader's path near the start. */
	img = far_elf(15, 1, 0x350, ET_EXEC, 0);
	es_sniff(img, ES_SNIFF_HEAD, &s);
	assert_int_equal(s.kind, ES_K_ELF_MORE);
	assert_int_equal(s.want_off, FAR_PHOFF);
	sniff_image(img, FAR_LEN, &s);
	assert_int_equal(s.kind, ES_K_ELF_DYNAMIC);
	assert_string_equal(s.interp, LOADER);
	free(img);
	/* More headers than one buffer holds, and the loader's path far in too. */
	img = far_elf(200, 1, FAR_PHOFF - 4096, ET_DYN, 0);
	assert_true(sniff_image(img, FAR_LEN, &s) >= 3);
	assert_int_equal(s.kind, ES_K_ELF_DYNAMIC);
	assert_string_equal(s.interp, LOADER);
	free(img);
	/* No loader, far in: static; a static-pie says so in DF_1_PIE. */
	img = far_elf(15, 0, 0x350, ET_EXEC, 0);
	sniff_image(img, FAR_LEN, &s);
	assert_int_equal(s.kind, ES_K_ELF_STATIC);
	assert_true(s.program);
	free(img);
	img = far_elf(15, 0, 0x350, ET_DYN, DF_1_PIE | DF_1_NOW);
	sniff_image(img, FAR_LEN, &s);
	assert_int_equal(s.kind, ES_K_ELF_STATIC);
	assert_true(s.program);
	free(img);
	/* A shared object (or ld.so itself): no loader, no PIE flag. */
	img = far_elf(15, 0, 0x350, ET_DYN, 0);
	sniff_image(img, FAR_LEN, &s);
	assert_int_equal(s.kind, ES_K_ELF_STATIC);
	assert_false(s.program);
	/* The file ends inside its headers: the kernel would not run it. */
	sniff_image(img, FAR_PHOFF + 100, &s);
	assert_int_equal(s.kind, ES_K_ELF_UNKNOWN);
	free(img);
	/* More header bytes than the kernel reads (64 KiB): unknown. */
	img = far_elf(15, 1, 0x350, ET_EXEC, 0);
	((Elf64_Ehdr *)(void *)img)->e_phnum = 1200;
	sniff_image(img, FAR_LEN, &s);
	assert_int_equal(s.kind, ES_K_ELF_UNKNOWN);
	free(img);
	/* A loader path that runs past the end of the file. */
	img = far_elf(15, 1, FAR_LEN - 8, ET_EXEC, 0);
	sniff_image(img, FAR_LEN, &s);
	assert_int_equal(s.kind, ES_K_ELF_UNKNOWN);
	free(img);
}

struct script_case {
	const char	*name;
	const char	*head;
	const char	*interp, *arg, *judge;
};

static const struct script_case scripts[] = {
	{ "plain sh", "#!/bin/sh\necho hi\n", "/bin/sh", "", "/bin/sh" },
	{ "space after #!", "#! /bin/bash -e\n", "/bin/bash", "-e", "/bin/bash" },
	{ "env bash", "#!/usr/bin/env bash\n", "/usr/bin/env", "bash", "bash" },
	{ "env -S with options", "#!/usr/bin/env -S bash -x\n", "/usr/bin/env", "-S bash -x", "bash" },
	{ "env with an assignment", "#!/usr/bin/env -S FOO=1 zsh\n", "/usr/bin/env", "-S FOO=1 zsh", "zsh" },
	{ "python", "#!/usr/bin/python3 -u\nprint()\n", "/usr/bin/python3", "-u", "/usr/bin/python3" },
	{ "CRLF line", "#!/bin/sh\r\n", "/bin/sh", "", "/bin/sh" },
	{ "no newline", "#!/bin/dash", "/bin/dash", "", "/bin/dash" },
	{ "trailing blanks", "#!/bin/sh  \t\n", "/bin/sh", "", "/bin/sh" },
};

static void
shebang_lines(void **state)
{
	struct es_sniff s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		const struct script_case *c = &scripts[i];

		es_sniff((const unsigned char *)c->head, strlen(c->head), &s);
		print_message("case: %s\n", c->name);
		assert_int_equal(s.kind, ES_K_SCRIPT);
		assert_string_equal(s.interp, c->interp);
		assert_string_equal(s.arg, c->arg);
		assert_string_equal(es_script_judge(&s), c->judge);
	}
}

static void
long_shebang_is_cut_like_the_kernel(void **state)
{
	char head[600];
	struct es_sniff s;

	(void)state;
	memset(head, 'a', sizeof(head));
	memcpy(head, "#!/", 3);
	es_sniff((const unsigned char *)head, sizeof(head), &s);
	assert_int_equal(s.kind, ES_K_SCRIPT);
	assert_true(strlen(s.interp) < ES_SHEBANG_MAX);
}

static void
neither_elf_nor_script(void **state)
{
	struct es_sniff s;

	(void)state;
	es_sniff((const unsigned char *)"echo hi\n", 8, &s);
	assert_int_equal(s.kind, ES_K_OTHER);
	es_sniff((const unsigned char *)"", 0, &s);
	assert_int_equal(s.kind, ES_K_OTHER);
	es_sniff((const unsigned char *)"#", 1, &s);
	assert_int_equal(s.kind, ES_K_OTHER);
}

static void
shells_by_name(void **state)
{
	static const char *yes[] = { "/bin/sh", "bash", "/usr/bin/dash", "zsh", "/bin/ksh",
	    "mksh", "/usr/bin/fish", "ash", "/bin/rbash" };
	static const char *no[] = { "/usr/bin/env", "shx", "/bin/bash5x", "sh/", "",
	    "/usr/bin/python3", "bashful" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(es_is_shell(NULL, yes[i]));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(es_is_shell(NULL, no[i]));
}

static void
policy_adds_shells(void **state)
{
	static struct es_policy p;

	(void)state;
	es_policy_init(&p);
	assert_false(es_is_shell(&p, "/usr/bin/xonsh"));
	assert_int_equal(es_policy_parse(&p, "shell xonsh\n", 12, "t", &(struct es_parse_err){ 0 }), 0);
	assert_true(es_is_shell(&p, "/usr/bin/xonsh"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_dynamic_binary),
		cmocka_unit_test(real_static_binary),
		cmocka_unit_test(crafted_elf),
		cmocka_unit_test(huge_phoff_does_not_wrap),
		cmocka_unit_test(far_program_headers),
		cmocka_unit_test(shebang_lines),
		cmocka_unit_test(long_shebang_is_cut_like_the_kernel),
		cmocka_unit_test(neither_elf_nor_script),
		cmocka_unit_test(shells_by_name),
		cmocka_unit_test(policy_adds_shells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
