"""python -m teachgbt: the teachgbt command."""

from .cli import command

command()
