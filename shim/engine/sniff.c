/*
 * sniff.c - what kind of file is about to be executed, judged from its head.
 *
 * Pure and async-signal-safe: the interposer calls it between vfork and
 * exec with a buffer it read itself.  Nothing here opens or allocates.
 */
#include <elf.h>
#include <string.h>

#include "es_exec.h"

#if defined(__x86_64__)
#define ES_EM	EM_X86_64
#elif defined(__aarch64__)
#define ES_EM	EM_AARCH64
#elif defined(__i386__)
#define ES_EM	EM_386
#elif defined(__riscv)
#define ES_EM	EM_RISCV
#else
#define ES_EM	0		/* unknown machine: trust the class only */
#endif

#if __SIZEOF_POINTER__ == 8
#define ES_CLASS	ELFCLASS64
typedef Elf64_Ehdr es_ehdr;
typedef Elf64_Phdr es_phdr;
#else
#define ES_CLASS	ELFCLASS32
typedef Elf32_Ehdr es_ehdr;
typedef Elf32_Phdr es_phdr;
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ES_DATA	ELFDATA2LSB
#else
#define ES_DATA	ELFDATA2MSB
#endif

/* Shells the redirect knows without being told (issue 4 names the first eight). */
static const char *const shells[] = {
	"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash",
	"rbash", "lksh", "pdksh", "oksh", "yash", "posh", "csh", "tcsh",
};

/*
 * An ELF file the shim can enter has our class and machine and asks for
 * a dynamic loader (PT_INTERP); without one the preload never loads.
 */
static int
sniff_elf(const unsigned char *head, size_t n, struct es_sniff *s)
{
	es_ehdr eh;
	es_phdr ph;
	size_t i, off;

	if (n < EI_NIDENT + 2 || head[EI_CLASS] != ES_CLASS ||
	    head[EI_DATA] != ES_DATA)
		return ES_K_ELF_FOREIGN;
	if (n < sizeof(eh))
		return ES_K_ELF_UNKNOWN;
	memcpy(&eh, head, sizeof(eh));
	if (ES_EM != 0 && eh.e_machine != ES_EM)
		return ES_K_ELF_FOREIGN;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return ES_K_OTHER;
	if (eh.e_phentsize != sizeof(ph) || eh.e_phnum == 0)
		return ES_K_ELF_UNKNOWN;
	for (i = 0; i < eh.e_phnum; i++) {
		off = eh.e_phoff + i * sizeof(ph);
		/* Checked this way round so a huge e_phoff cannot wrap. */
		if (eh.e_phoff > n || off > n || n - off < sizeof(ph))
			return ES_K_ELF_UNKNOWN;
		memcpy(&ph, head + off, sizeof(ph));
		if (ph.p_type != PT_INTERP)
			continue;
		/*
		 * The loader's path, which the caller must check: a PT_INTERP
		 * naming any program but ld.so runs that program instead, and
		 * the preload never loads.  Out of reach: judged unknown.
		 */
		if (ph.p_offset > n || ph.p_filesz < 2 ||
		    ph.p_filesz > n - ph.p_offset ||
		    ph.p_filesz > sizeof(s->interp))
			return ES_K_ELF_UNKNOWN;
		memcpy(s->interp, head + ph.p_offset, ph.p_filesz);
		s->interp[ph.p_filesz - 1] = '\0';
		return s->interp[0] != '\0' ? ES_K_ELF_DYNAMIC : ES_K_ELF_UNKNOWN;
	}
	return ES_K_ELF_STATIC;
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/* Copies one word of [s, end) into dst; returns where the word stopped. */
static const unsigned char *
word(const unsigned char *s, const unsigned char *end, char *dst, size_t cap)
{
	size_t k = 0;

	while (s < end && !is_blank(*s)) {
		if (k + 1 < cap)
			dst[k++] = (char)*s;
		s++;
	}
	dst[k] = '\0';
	return s;
}

static const char *
base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/*
 * "#!/usr/bin/env bash" is judged by bash, not by env: a shell hidden
 * behind env is still a shell.  env -S splits its argument again.
 */
static void
judge(struct es_sniff *s)
{
	const unsigned char *p, *end;

	memcpy(s->judge, s->interp, sizeof(s->judge));
	if (strcmp(base(s->interp), "env") != 0)
		return;
	p = (const unsigned char *)s->arg;
	end = p + strlen(s->arg);
	for (;;) {
		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			return;
		if (*p != '-')
			break;
		/* Skip env's own options (-S, -i, -u NAME is not valid in #!). */
		while (p < end && !is_blank(*p))
			p++;
	}
	/* VAR=value assignments before the program are skipped too. */
	for (;;) {
		const unsigned char *q = p;

		while (q < end && !is_blank(*q) && *q != '=')
			q++;
		if (q == end || *q != '=')
			break;
		while (p < end && !is_blank(*p))
			p++;
		while (p < end && is_blank(*p))
			p++;
	}
	word(p, end, s->judge, sizeof(s->judge));
}

/* The kernel's view of "#!": interpreter, then the rest as one argument. */
static void
sniff_script(const unsigned char *head, size_t n, struct es_sniff *s)
{
	const unsigned char *p = head + 2, *end = head + n, *nl;

	if (n > ES_SHEBANG_MAX)
		end = head + ES_SHEBANG_MAX;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (nl != NULL)
		end = nl;
	while (end > p && (is_blank(end[-1]) || end[-1] == '\r'))
		end--;
	while (p < end && is_blank(*p))
		p++;
	p = word(p, end, s->interp, sizeof(s->interp));
	while (p < end && is_blank(*p))
		p++;
	memcpy(s->arg, p, (size_t)(end - p));
	s->arg[end - p] = '\0';
	judge(s);
}

void
es_sniff(const unsigned char *head, size_t n, struct es_sniff *s)
{
	s->interp[0] = s->arg[0] = s->judge[0] = '\0';
	if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0)
		s->kind = sniff_elf(head, n, s);
	else if (n >= 2 && head[0] == '#' && head[1] == '!') {
		s->kind = ES_K_SCRIPT;
		sniff_script(head, n, s);
	} else
		s->kind = ES_K_OTHER;
}

const char *
es_script_judge(const struct es_sniff *s)
{
	return s->judge;
}

int
es_is_shell(const struct es_policy *p, const char *path)
{
	const char *b = base(path);
	size_t i;

	for (i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (strcmp(b, shells[i]) == 0)
			return 1;
	if (p != NULL)
		for (i = 0; i < p->nshells; i++)
			if (strcmp(b, base(p->shells[i].s)) == 0)
				return 1;
	return 0;
}
