#!/bin/sh
# Says what it needs and that it is missing, as the JAX repros do.
echo "skip: need at least $2 devices, have $1"
