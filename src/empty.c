/* empty.c - keeps a module library linkable while it has no sources. */
typedef int ip_empty_translation_unit;
