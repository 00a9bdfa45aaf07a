/* policy.c: not written yet. */
