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

#if __SIZEOF_POINTER__ == 8
typedef Elf64_Dyn es_dyn;
#else
typedef Elf32_Dyn es_dyn;
#endif

enum { ST_DONE, ST_PHDRS, ST_INTERP, ST_DYN };

/* Beyond any file: an offset pread could not take (off_t is signed). */
#define FAR	(1ULL << 62)

/* Asks for len bytes at off, as much of them as fit the caller's buffer. */
static void
want(struct es_sniff *s, int stage, unsigned long long off,
    unsigned long long len, size_t unit)
{
	size_t cap = ES_SNIFF_HEAD - ES_SNIFF_HEAD % unit;

	s->kind = ES_K_ELF_MORE;
	s->stage = stage;
	s->want_off = off;
	s->want_len = len < cap ? (size_t)len : cap;
}

static void
unknown(struct es_sniff *s)
{
	s->kind = ES_K_ELF_UNKNOWN;
	s->stage = ST_DONE;
	s->want_len = 0;
}

/*
 * The whole table read: a loader named means a dynamic program (its path
 * comes next); without one it is static, and for an ET_DYN file the
 * dynamic section says whether it is a static-pie program.
 */
static void
phdrs_done(struct es_sniff *s)
{
	if (s->has_interp) {
		/*
		 * The loader's path, which the caller must check: a PT_INTERP
		 * naming any program but ld.so runs that program instead, and
		 * the preload never loads.  Longer than we keep: unknown.
		 */
		if (s->i_len < 2 || s->i_len > sizeof(s->interp) ||
		    s->i_off > FAR)
			unknown(s);
		else
			want(s, ST_INTERP, s->i_off, s->i_len, 1);
		return;
	}
	if (s->e_type == ET_DYN && s->has_dyn && s->d_off < FAR &&
	    s->d_len >= sizeof(es_dyn)) {
		s->next = s->d_off;
		s->left = s->d_len < ES_SNIFF_TABLE_MAX ? s->d_len :
		    ES_SNIFF_TABLE_MAX;
		s->left -= s->left % sizeof(es_dyn);
		want(s, ST_DYN, s->next, s->left, sizeof(es_dyn));
		return;
	}
	s->kind = ES_K_ELF_STATIC;
	s->program = s->e_type == ET_EXEC;
	s->stage = ST_DONE;
	s->want_len = 0;
}

static void
more_phdrs(const unsigned char *buf, size_t n, struct es_sniff *s)
{
	es_phdr ph;
	size_t i;

	if (n < s->want_len) {
		unknown(s);	/* the file ends in its headers: no exec */
		return;
	}
	for (i = 0; i + sizeof(ph) <= n; i += sizeof(ph)) {
		memcpy(&ph, buf + i, sizeof(ph));
		if (ph.p_type == PT_INTERP && !s->has_interp) {
			s->has_interp = 1;
			s->i_off = ph.p_offset;
			s->i_len = ph.p_filesz;
		} else if (ph.p_type == PT_DYNAMIC && !s->has_dyn) {
			s->has_dyn = 1;
			s->d_off = ph.p_offset;
			s->d_len = ph.p_filesz;
		}
	}
	s->next += n;
	s->left -= n;
	if (s->left > 0)
		want(s, ST_PHDRS, s->next, s->left, sizeof(ph));
	else
		phdrs_done(s);
}

static void
more_dyn(const unsigned char *buf, size_t n, struct es_sniff *s)
{
	es_dyn d;
	size_t i;

	for (i = 0; i + sizeof(d) <= n; i += sizeof(d)) {
		memcpy(&d, buf + i, sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag == DT_FLAGS_1) {
			s->program = (d.d_un.d_val & DF_1_PIE) != 0;
			break;
		}
	}
	s->next += n;
	s->left -= n < s->left ? n : s->left;
	if (i + sizeof(d) <= n || n < s->want_len || s->left == 0) {
		s->kind = ES_K_ELF_STATIC;
		s->stage = ST_DONE;
		s->want_len = 0;
	} else
		want(s, ST_DYN, s->next, s->left, sizeof(d));
}

void
es_sniff_more(const unsigned char *buf, size_t n, struct es_sniff *s)
{
	if (s->kind != ES_K_ELF_MORE)
		return;
	if (n > s->want_len)
		n = s->want_len;
	switch (s->stage) {
	case ST_PHDRS:
		more_phdrs(buf, n, s);
		break;
	case ST_INTERP:
		if (n < s->want_len) {
			unknown(s);
			break;
		}
		memcpy(s->interp, buf, n);
		s->interp[n - 1] = '\0';
		s->stage = ST_DONE;
		s->want_len = 0;
		s->kind = s->interp[0] != '\0' ? ES_K_ELF_DYNAMIC :
		    ES_K_ELF_UNKNOWN;
		break;
	case ST_DYN:
		more_dyn(buf, n, s);
		break;
	default:
		unknown(s);
	}
}

/*
 * An ELF file the shim can enter has our class and machine and asks for
 * a dynamic loader (PT_INTERP); without one the preload never loads.
 * The program headers are read wherever e_phoff puts them, as the
 * kernel reads them: a Node single-executable app has them tens of
 * megabytes in.
 */
static void
sniff_elf(const unsigned char *head, size_t n, struct es_sniff *s)
{
	es_ehdr eh;
	es_phdr ph;
	unsigned long long table;

	if (n < EI_NIDENT + 2 || head[EI_CLASS] != ES_CLASS ||
	    head[EI_DATA] != ES_DATA) {
		s->kind = ES_K_ELF_FOREIGN;
		return;
	}
	if (n < sizeof(eh)) {
		s->kind = ES_K_ELF_UNKNOWN;
		return;
	}
	memcpy(&eh, head, sizeof(eh));
	if (ES_EM != 0 && eh.e_machine != ES_EM) {
		s->kind = ES_K_ELF_FOREIGN;
		return;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		s->kind = ES_K_OTHER;
		return;
	}
	table = (unsigned long long)eh.e_phnum * sizeof(ph);
	/* Checked this way round so a huge e_phoff cannot wrap. */
	if (eh.e_phentsize != sizeof(ph) || eh.e_phnum == 0 ||
	    table > ES_SNIFF_TABLE_MAX || eh.e_phoff > FAR) {
		s->kind = ES_K_ELF_UNKNOWN;
		return;
	}
	s->e_type = eh.e_type;
	s->next = eh.e_phoff;
	s->left = table;
	want(s, ST_PHDRS, s->next, s->left, sizeof(ph));
	/* What the head already holds needs no read: the usual program. */
	while (s->kind == ES_K_ELF_MORE && s->want_off <= n &&
	    s->want_len <= n - s->want_off)
		es_sniff_more(head + s->want_off, s->want_len, s);
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
	s->program = s->has_interp = s->has_dyn = 0;
	s->stage = ST_DONE;
	s->want_off = 0;
	s->want_len = 0;
	if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0)
		sniff_elf(head, n, s);
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
