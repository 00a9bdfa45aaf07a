/* parse.c: not written yet. */
