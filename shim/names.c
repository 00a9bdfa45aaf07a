/* names.c: not written yet. */
