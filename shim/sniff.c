/* sniff.c: not written yet. */
