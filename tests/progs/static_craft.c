/*
 * static_craft - craft linked statically: the shim can never load into it,
 * so whatever it execs is started by a program the shim cannot see.
 */
#define CRAFT_STATIC
#include "craft.c"
