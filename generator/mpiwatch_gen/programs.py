"""The small programs the probes compile and run, from templates/probes/.

Probing the MPI (symbols.py: which libraries a program links; layering.py:
which layer the Fortran bindings call) means compiling small C and Fortran
programs. They are templates like every other output, rendered here with
the same strict Jinja2 rules, so that they can be read, diffed and
overridden as files.
"""

from __future__ import annotations

import os

import jinja2

from .errors import GenError

# The source tree (or, installed, the folder holding generator/, templates/
# and spec/).
SOURCE_TREE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "..", ".."))
BUILTIN_TEMPLATES = os.path.join(SOURCE_TREE, "templates")
PROBES = "probes"

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(os.path.join(BUILTIN_TEMPLATES, PROBES)),
    undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    keep_trailing_newline=True, autoescape=False)


def program(name: str, **values: object) -> str:
    """The source of the probe program templates/probes/NAME.j2."""
    try:
        return _ENV.get_template(f"{name}.j2").render(**values)
    except jinja2.TemplateNotFound:
        raise GenError(f"probe program template not found: {PROBES}/{name}.j2",
                       BUILTIN_TEMPLATES) from None
    except jinja2.TemplateError as err:
        raise GenError(f"probe program template error: {err}",
                       os.path.join(BUILTIN_TEMPLATES, PROBES, f"{name}.j2")) from None


def write_program(folder: str, name: str, **values: object) -> str:
    """Write templates/probes/NAME.j2, rendered, as folder/NAME; return its path."""
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as out:
        out.write(program(name, **values))
    return path
