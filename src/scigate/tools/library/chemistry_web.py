"""Chemistry tools backed by the PubChem PUG-REST web service (network=True).

Real clients of https://pubchem.ncbi.nlm.nih.gov/rest/pug: each builds the documented
request and parses the documented JSON (or SDF) answer. Offline, `_http.fetch` raises
`ServiceUnavailable` ("network unavailable: ...") and the tool returns ok: false. Inputs
are validated before any request so that bad input is reported as bad input.
"""

from __future__ import annotations

import re
from typing import Any

from scigate.tools._http import fetch, fetch_json
from scigate.tools._tool import ToolInputError, tool
from scigate.tools._vocabulary import cas_check_digit_ok
from scigate.tools.library.chemistry_common import parse_smiles

PUG = "https://pubchem.ncbi.nlm.nih.gov/rest/pug"
SERVICE = "PubChem"
SOURCE = "PubChem PUG-REST"
TIMEOUT = 15.0
_INCHIKEY_RE = re.compile(r"^[A-Z]{14}-[A-Z]{8}[SN][A-Z]-[A-Z]$")
_SMILES_KEYS = ("SMILES", "IsomericSMILES", "CanonicalSMILES", "ConnectivitySMILES")
PROPERTIES = (
    "MolecularFormula",
    "MolecularWeight",
    "ExactMass",
    "XLogP",
    "TPSA",
    "HBondDonorCount",
    "HBondAcceptorCount",
    "RotatableBondCount",
    "HeavyAtomCount",
    "Charge",
    "IUPACName",
    "SMILES",
    "InChI",
    "InChIKey",
)


def _inchikey(inchikey: str) -> str:
    key = (inchikey or "").strip()
    if not key:
        raise ToolInputError("empty InChIKey")
    if not _INCHIKEY_RE.match(key):
        raise ToolInputError(
            f"invalid InChIKey '{key}': expected 14-10-1 upper-case letter blocks (XXXXXXXXXXXXXX-XXXXXXXXXX-X)"
        )
    return key


def _name(name: str) -> str:
    text = (name or "").strip()
    if not text:
        raise ToolInputError("empty molecule name")
    return text


def _pug(path: str, *, post: dict[str, str] | None = None) -> Any:
    """The JSON answer of PUG-REST ``<path>/JSON``, POSTing `post` as form data when given."""
    return fetch_json(
        f"{PUG}/{path}/JSON",
        service=SERVICE,
        method="GET" if post is None else "POST",
        data=post,
        timeout=TIMEOUT,
    )


def _dig(body: Any, outer: str, inner: str, what: str) -> Any:
    """``body[outer][inner]``; a `ToolInputError` naming `what` when the answer lacks it."""
    try:
        return body[outer][inner]
    except (KeyError, TypeError):
        raise ToolInputError(f"PubChem answer has no {what}") from None


def _first_property_row(body: Any) -> dict[str, Any]:
    rows = _dig(body, "PropertyTable", "Properties", "PropertyTable")
    if not rows:
        raise ToolInputError("PubChem returned no compound")
    return rows[0]


def _smiles_from_row(row: dict[str, Any]) -> str:
    for key in _SMILES_KEYS:
        if row.get(key):
            smiles = str(row[key])
            try:
                from scigate.tools.library.chemistry_common import canonical

                return canonical(parse_smiles(smiles))
            except (ToolInputError, ImportError):
                return smiles
    raise ToolInputError("PubChem answer has no SMILES")


def _by_inchikey(inchikey: str, prop: str) -> dict[str, Any]:
    return _first_property_row(_pug(f"compound/inchikey/{_inchikey(inchikey)}/property/{prop}"))


def _by_name(name: str, prop: str) -> dict[str, Any]:
    return _first_property_row(_pug(f"compound/name/property/{prop}", post={"name": _name(name)}))


_WEB_SCEN = ["database lookup", "identifier resolution"]


@tool(
    name="InChIKeyToSMILES",
    functionality="Resolve an InChIKey against the PubChem database and return the compound's SMILES.",
    inputs=["InChIKey"],
    outputs=["SMILES"],
    category="chemistry",
    source=SOURCE,
    objects=["molecule"],
    scenarios=_WEB_SCEN,
    network=True,
    requires=["httpx"],
)
def inchikey_to_smiles(inchikey: str) -> str:
    """PUG-REST compound/inchikey/<key>/property/SMILES; RDKit-canonicalised when RDKit is present."""
    return _smiles_from_row(_by_inchikey(inchikey, "SMILES"))


@tool(
    name="InChIKeyToInChI",
    functionality="Resolve an InChIKey against the PubChem database and return the compound's InChI.",
    inputs=["InChIKey"],
    outputs=["InChI"],
    category="chemistry",
    source=SOURCE,
    objects=["molecule"],
    scenarios=_WEB_SCEN,
    network=True,
    requires=["httpx"],
)
def inchikey_to_inchi(inchikey: str) -> str:
    """PUG-REST compound/inchikey/<key>/property/InChI."""
    row = _by_inchikey(inchikey, "InChI")
    if not row.get("InChI"):
        raise ToolInputError("PubChem answer has no InChI")
    return str(row["InChI"])


@tool(
    name="InChIKeyToMOL",
    functionality="Resolve an InChIKey against the PubChem database and return the compound as a 2D MOL block.",
    inputs=["InChIKey"],
    outputs=["MOL"],
    category="chemistry",
    source=SOURCE,
    objects=["molecule"],
    scenarios=[*_WEB_SCEN, "structure file retrieval"],
    network=True,
    requires=["httpx"],
)
def inchikey_to_mol(inchikey: str) -> str:
    """PUG-REST compound/inchikey/<key>/SDF (first record, up to 'M  END')."""
    key = _inchikey(inchikey)
    response = fetch(
        f"{PUG}/compound/inchikey/{key}/SDF",
        service=SERVICE,
        params={"record_type": "2d"},
        timeout=TIMEOUT,
    )
    text = response.text
    end = text.find("M  END")
    if end < 0:
        raise ToolInputError("PubChem answer is not an SDF record")
    return text[: end + len("M  END")] + "\n"


@tool(
    name="PubChemNameToSMILES",
    functionality="Look up a chemical by any name (trade, trivial or systematic) in PubChem and return its SMILES.",
    inputs=["molecule name"],
    outputs=["SMILES"],
    category="chemistry",
    source=SOURCE,
    objects=["molecule"],
    scenarios=_WEB_SCEN,
    network=True,
    requires=["httpx"],
)
def pubchem_name_to_smiles(name: str) -> str:
    """PUG-REST compound/name/property/SMILES (POST name=...)."""
    return _smiles_from_row(_by_name(name, "SMILES"))


@tool(
    name="NameToCID",
    functionality="Look up the PubChem compound identifiers (CIDs) of a chemical name.",
    inputs=["molecule name"],
    outputs=["CID"],
    category="chemistry",
    source=SOURCE,
    objects=["molecule"],
    scenarios=_WEB_SCEN,
    network=True,
    requires=["httpx"],
)
def name_to_cid(name: str) -> list[int]:
    """PUG-REST compound/name/cids (POST name=...)."""
    body = _pug("compound/name/cids", post={"name": _name(name)})
    try:
        cids = [int(c) for c in _dig(body, "IdentifierList", "CID", "CID list")]
    except (TypeError, ValueError):
        raise ToolInputError("PubChem answer has no CID list") from None
    if not cids or cids == [0]:
        raise ToolInputError(f"PubChem has no compound named '{name.strip()}'")
    return cids


@tool(
    name="GetPubChemProperties",
    functionality="Fetch PubChem's computed properties (formula, weight, XLogP, TPSA, H-bond counts, IUPAC name, SMILES, InChIKey) of a named chemical.",
    inputs=["molecule name"],
    outputs=["molecular properties"],
    category="chemistry",
    source=SOURCE,
    objects=["molecule"],
    scenarios=["database lookup", "molecular property retrieval"],
    network=True,
    requires=["httpx"],
)
def pubchem_properties(name: str) -> dict[str, Any]:
    """PUG-REST compound/name/property/<list>; numbers arrive as strings for weights and are converted."""
    row = _by_name(name, ",".join(PROPERTIES))
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in ("MolecularWeight", "ExactMass"):
            out[key] = float(value)
        else:
            out[key] = value
    return out


@tool(
    name="SMILESToCAS",
    functionality="Find the CAS registry number of a molecule from its SMILES via PubChem synonyms (check digit verified).",
    inputs=["SMILES"],
    outputs=["CAS"],
    category="chemistry",
    source=SOURCE,
    objects=["molecule"],
    scenarios=["identifier resolution", "regulatory lookup"],
    network=True,
    requires=["httpx", "rdkit"],
)
def smiles_to_cas(smiles: str) -> str:
    """PUG-REST compound/smiles/synonyms (POST smiles=...); the first synonym that is a valid CAS number."""
    parse_smiles(smiles)
    body = _pug("compound/smiles/synonyms", post={"smiles": smiles.strip()})
    for entry in _dig(body, "InformationList", "Information", "synonym list"):
        for synonym in entry.get("Synonym", []):
            if cas_check_digit_ok(str(synonym).strip()):
                return str(synonym).strip()
    raise ToolInputError("PubChem lists no CAS registry number for this structure")
