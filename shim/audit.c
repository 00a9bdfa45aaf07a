/* audit.c: not written yet. */
