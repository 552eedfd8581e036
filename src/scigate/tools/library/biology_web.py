"""Biology tools that are clients of public web services: UniProt, RCSB PDB, NCBI BLAST, OMA.

Each builds the service's documented request and parses its documented response; offline
they answer ``{"ok": false, "error": "network unavailable: ..."}``.
"""

from __future__ import annotations

import io
import re
import time
from typing import Any

from scigate.tools._http import ServiceUnavailable, fetch, fetch_json
from scigate.tools._tool import ToolInputError, tool
from scigate.tools.library.biology_common import BIO, clean_protein

WEB_TIMEOUT = 15.0
UNIPROT_SEARCH = "https://rest.uniprot.org/uniprotkb/search"
RCSB_FILES = "https://files.rcsb.org/download/{pdb_id}.pdb"
RCSB_ENTRY = "https://data.rcsb.org/rest/v1/core/entry/{pdb_id}"
NCBI_BLAST = "https://blast.ncbi.nlm.nih.gov/Blast.cgi"
OMA_ORTHOLOGS = "https://omabrowser.org/api/protein/{entry}/orthologs/"


def clean_pdb_id(pdb_id: str) -> str:
    """A four-character PDB identifier (digit + three alphanumerics), upper-case."""
    value = pdb_id.strip().upper()
    if not re.fullmatch(r"[1-9][A-Z0-9]{3}", value):
        raise ToolInputError(
            f"invalid PDB ID {pdb_id!r}: expected 4 characters, a digit 1-9 then 3 letters/digits"
        )
    return value


@tool(
    name="GetFASTAFromName",
    functionality="Query UniProtKB (reviewed entries first) for a protein name and return the FASTA record of the best match.",
    inputs=["protein name"],
    outputs=["protein sequence"],
    category="biology",
    source="UniProt REST",
    objects=["protein"],
    scenarios=["sequence retrieval"],
    network=True,
)
def fasta_from_name(name: str, organism: str = "") -> str:
    """FASTA text of the top UniProtKB hit for `name` (optionally within `organism`)."""
    term = name.strip()
    if not term:
        raise ToolInputError("protein name is empty")
    query = f"({term})"
    if organism.strip():
        query += f' AND organism_name:"{organism.strip()}"'
    for reviewed in (" AND reviewed:true", ""):
        response = fetch(
            UNIPROT_SEARCH,
            service="UniProt",
            params={"query": query + reviewed, "format": "fasta", "size": 1},
            timeout=WEB_TIMEOUT,
        )
        if response.text.strip().startswith(">"):
            return response.text.strip()
    raise ToolInputError(f"UniProt found no protein named {term!r}")


@tool(
    name="FetchProteinStructureFromPDBID",
    functionality="Fetch the structure file (PDB format text) of a PDB ID from the RCSB Protein Data Bank.",
    inputs=["PDB ID"],
    outputs=["PDB file"],
    category="biology",
    source="RCSB PDB",
    objects=["protein structure"],
    scenarios=["structure retrieval"],
    network=True,
)
def fetch_pdb(pdb_id: str) -> str:
    """The PDB-format text of the entry."""
    pid = clean_pdb_id(pdb_id)
    return fetch(RCSB_FILES.format(pdb_id=pid), service="RCSB PDB", timeout=WEB_TIMEOUT).text


@tool(
    name="AnalyzeProteinLengthFromPDB",
    functionality="Determine the number of polymer residues (sequence length) of a PDB entry from the RCSB data API.",
    inputs=["PDB ID or PDB name"],
    outputs=["protein sequence length"],
    category="biology",
    source="RCSB PDB",
    objects=["protein structure"],
    scenarios=["structure analysis"],
    network=True,
)
def pdb_length(pdb_id: str) -> int:
    """`rcsb_entry_info.deposited_polymer_monomer_count` of the entry."""
    pid = clean_pdb_id(pdb_id)
    data = fetch_json(RCSB_ENTRY.format(pdb_id=pid), service="RCSB PDB", timeout=WEB_TIMEOUT)
    try:
        return int(data["rcsb_entry_info"]["deposited_polymer_monomer_count"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ServiceUnavailable("RCSB PDB returned an entry without a residue count") from exc


@tool(
    name="GetCoronaOrthologs",
    functionality="Retrieve the orthologs of a protein (UniProtKB accession or OMA ID) from the OMA orthology database.",
    inputs=["UniProtKB ID"],
    outputs=["orthologs"],
    category="biology",
    source="OMA REST",
    objects=["protein", "ortholog"],
    scenarios=["comparative genomics", "evolution"],
    network=True,
)
def oma_orthologs(entry: str, limit: int = 50) -> list[dict[str, Any]]:
    """Orthologs as {omaid, canonicalid, species, relation}."""
    key = entry.strip()
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", key):
        raise ToolInputError(f"invalid UniProtKB/OMA identifier {entry!r}")
    data = fetch_json(OMA_ORTHOLOGS.format(entry=key), service="OMA", timeout=WEB_TIMEOUT)
    if not isinstance(data, list):
        raise ServiceUnavailable("OMA returned an unexpected body (expected a list)")
    out = []
    for item in data[: max(limit, 1)]:
        species = item.get("species") or {}
        out.append(
            {
                "omaid": item.get("omaid"),
                "canonicalid": item.get("canonicalid"),
                "species": species.get("species") if isinstance(species, dict) else species,
                "relation": item.get("rel_type"),
            }
        )
    return out


def _blast_put(sequence: str, database: str, program: str) -> tuple[str, int]:
    response = fetch(
        NCBI_BLAST,
        service="NCBI BLAST",
        method="POST",
        data={"CMD": "Put", "PROGRAM": program, "DATABASE": database, "QUERY": sequence},
        timeout=WEB_TIMEOUT,
    )
    rid = re.search(r"RID = (\S+)", response.text)
    rtoe = re.search(r"RTOE = (\d+)", response.text)
    if not rid:
        raise ServiceUnavailable("NCBI BLAST did not return a request ID")
    return rid.group(1), int(rtoe.group(1)) if rtoe else 10


def parse_blast_xml(xml: str, max_hits: int) -> list[dict[str, Any]]:
    """Hits of a BLAST XML report: title, accession, E-value, identity, alignment length."""
    from Bio.Blast import NCBIXML

    try:
        record = NCBIXML.read(io.StringIO(xml))
    except Exception as exc:
        raise ServiceUnavailable(f"NCBI BLAST returned an unreadable report: {exc}") from exc
    hits = []
    for alignment in record.alignments[:max_hits]:
        hsp = alignment.hsps[0]
        hits.append(
            {
                "title": alignment.title,
                "accession": alignment.accession,
                "e_value": hsp.expect,
                "score": hsp.score,
                "identity_percent": 100 * hsp.identities / hsp.align_length,
                "align_length": hsp.align_length,
            }
        )
    return hits


@tool(
    name="PerformBlastQuery",
    functionality="Run a BLASTP search of a protein sequence on NCBI BLAST (SwissProt by default) and return the top hits.",
    inputs=["protein sequence"],
    outputs=["BLAST query results"],
    category="biology",
    source="NCBI BLAST URL API",
    objects=["protein"],
    scenarios=["homology search", "annotation"],
    network=True,
    requires=BIO,
)
def blast_query(
    protein: str, max_hits: int = 10, database: str = "swissprot", max_wait_s: int = 300
) -> list[dict[str, Any]]:
    """Submit (CMD=Put), poll (CMD=Get SearchInfo) and fetch the XML report (CMD=Get)."""
    seq = clean_protein(protein)
    if not re.fullmatch(r"[A-Za-z0-9_]+", database):
        raise ToolInputError(f"invalid BLAST database name {database!r}")
    rid, rtoe = _blast_put(seq, database, "blastp")
    deadline = time.monotonic() + max_wait_s
    time.sleep(min(rtoe, 10))
    while True:
        status = fetch(
            NCBI_BLAST,
            service="NCBI BLAST",
            params={"CMD": "Get", "FORMAT_OBJECT": "SearchInfo", "RID": rid},
            timeout=WEB_TIMEOUT,
        ).text
        if "Status=READY" in status:
            break
        if "Status=FAILED" in status or "Status=UNKNOWN" in status:
            raise ServiceUnavailable(f"NCBI BLAST search {rid} failed or expired")
        if time.monotonic() > deadline:
            raise ServiceUnavailable(f"NCBI BLAST search {rid} not ready after {max_wait_s} s")
        time.sleep(10)
    xml = fetch(
        NCBI_BLAST,
        service="NCBI BLAST",
        params={"CMD": "Get", "FORMAT_TYPE": "XML", "RID": rid, "HITLIST_SIZE": max_hits},
        timeout=WEB_TIMEOUT,
    ).text
    return parse_blast_xml(xml, max_hits)
