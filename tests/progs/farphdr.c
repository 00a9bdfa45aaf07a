/*
 * farphdr - copies a dynamically linked 64-bit program with its program
 * headers moved past an offset (default 1 MiB), the way postject leaves
 * a Node single-executable app (Copilot CLI's are 46 MB in): a new
 * PT_LOAD maps the moved table, PT_PHDR points at it, the rest of the
 * file is untouched.  Usage: farphdr IN OUT [MIN-OFFSET]
 */
#include <sys/stat.h>

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE	4096ULL

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

int
main(int argc, char **argv)
{
	unsigned long long minoff = argc > 3 ? strtoull(argv[3], NULL, 0) : 1ULL << 20;
	unsigned long long off, end = 0, base = 0, size;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph, *np;
	struct stat sb;
	unsigned char *img;
	int in, out, i, first = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: farphdr IN OUT [MIN-OFFSET]\n");
		return 2;
	}
	if ((in = open(argv[1], O_RDONLY)) < 0 || fstat(in, &sb) != 0)
		die(argv[1]);
	if ((img = malloc((size_t)sb.st_size)) == NULL ||
	    read(in, img, (size_t)sb.st_size) != sb.st_size)
		die("read");
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(*ph)) {
		fprintf(stderr, "farphdr: %s: not a 64-bit ELF program\n", argv[1]);
		return 1;
	}
	ph = (Elf64_Phdr *)(void *)(img + eh.e_phoff);
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (first)
			base = ph[i].p_vaddr - ph[i].p_offset;
		first = 0;
		if (ph[i].p_vaddr + ph[i].p_memsz > end)
			end = ph[i].p_vaddr + ph[i].p_memsz;
	}
	/* Page-aligned, past the file and past every segment in memory. */
	off = ((unsigned long long)sb.st_size + PAGE - 1) & ~(PAGE - 1);
	if (off < minoff)
		off = (minoff + PAGE - 1) & ~(PAGE - 1);
	while (base + off < end)
		off += PAGE;
	size = (eh.e_phnum + 1ULL) * sizeof(*ph);
	if ((np = calloc(eh.e_phnum + 1U, sizeof(*np))) == NULL)
		die("calloc");
	memcpy(np, ph, eh.e_phnum * sizeof(*ph));
	for (i = 0; i < eh.e_phnum; i++)
		if (np[i].p_type == PT_PHDR) {
			np[i].p_offset = off;
			np[i].p_vaddr = np[i].p_paddr = base + off;
			np[i].p_filesz = np[i].p_memsz = size;
		}
	/* Last, so the kernel's first-to-last mapping size covers it. */
	np[eh.e_phnum].p_type = PT_LOAD;
	np[eh.e_phnum].p_flags = PF_R;
	np[eh.e_phnum].p_offset = off;
	np[eh.e_phnum].p_vaddr = np[eh.e_phnum].p_paddr = base + off;
	np[eh.e_phnum].p_filesz = np[eh.e_phnum].p_memsz = size;
	np[eh.e_phnum].p_align = PAGE;
	eh.e_phoff = off;
	eh.e_phnum++;
	memcpy(img, &eh, sizeof(eh));
	if ((out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0755)) < 0 ||
	    write(out, img, (size_t)sb.st_size) != sb.st_size ||
	    pwrite(out, np, (size_t)size, (off_t)off) != (ssize_t)size ||
	    close(out) != 0)
		die(argv[2]);
	return 0;
}
