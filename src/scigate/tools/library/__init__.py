"""The tool modules: chemistry*, biology*, materials*, general, fem.

Importing this package registers nothing; `scigate.tools.load_library()` imports every
module in it, which registers their tools in `scigate.tools.REGISTRY`. Tool modules
import heavy libraries (RDKit, Biopython, pymatgen, DOLFINx) inside function bodies so
that loading the library stays fast.
"""

from scigate.tools.library._units import parse_unit

__all__ = ["parse_unit"]
