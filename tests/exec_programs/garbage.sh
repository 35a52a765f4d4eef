#!/bin/sh
# Exits 0 but prints bytes that are not text and never the line a pass requires.
printf '\001\002\377\376garbage\033[31m\n\200\201\n'
head -c 300 /dev/zero | tr '\0' '\377'
echo
