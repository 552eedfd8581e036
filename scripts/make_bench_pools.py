"""Write the larger entity pools of `scigate bench build` into src/scigate/bench/data/pools.json.

Run once with the project's environment (`.venv/bin/python scripts/make_bench_pools.py`); the
output is shipped, so builds never read these sources at run time. Every pool records its
source and license. The selection is deterministic (sorted, filtered, first N), so running
the script again with the same RDKit / pymatgen data gives the same file.

- molecules (SMILES): the NCI Open Database sample shipped with RDKit
  (rdkit/Data/NCI/first_5K.smi): single neutral components, 8-30 heavy atoms, C/H/N/O/S/
  halogens only, unique canonical SMILES.
- crystals: ordered structures with at most 12 sites of the AFLOW Library of
  Crystallographic Prototypes as shipped with pymatgen
  (pymatgen/analysis/prototypes/aflow_prototypes.json.gz).
- formulas: 2-4 element formulas of pymatgen's experimental formation-energy compounds
  (pymatgen/analysis/compatibility/exp_compounds.json.gz).
- peptides: written by hand below (published sequences of well-known peptides and small
  proteins; sequences are facts), one-letter codes of the 20 standard amino acids only.
- DNA: for each peptide, a coding sequence written for scigate (ATG, the peptide's codons
  from a fixed E. coli-preferred table, TAA), plus common cloning elements (facts).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "scigate" / "bench" / "data" / "pools.json"
N_SMILES, N_CRYSTALS, N_FORMULAS = 200, 100, 200


def nci_smiles() -> list[dict[str, str]]:
    import rdkit
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    path = Path(rdkit.__file__).parent / "Data" / "NCI" / "first_5K.smi"
    seen, out = set(), []
    allowed = {"C", "H", "N", "O", "S", "F", "Cl", "Br", "I"}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 2 or "." in parts[0]:
            continue
        mol = Chem.MolFromSmiles(parts[0])
        if mol is None or not 8 <= mol.GetNumHeavyAtoms() <= 30:
            continue
        if any(a.GetFormalCharge() for a in mol.GetAtoms()):
            continue
        if {a.GetSymbol() for a in mol.GetAtoms()} - allowed:
            continue
        smi = Chem.MolToSmiles(mol)
        if smi in seen:
            continue
        seen.add(smi)
        out.append({"name": f"NCI-5K compound {parts[1]}", "smiles": smi})
        if len(out) >= N_SMILES:
            break
    return out


def aflow_crystals() -> list[dict]:
    import pymatgen.core

    path = (
        Path(pymatgen.core.__file__).parents[1]
        / "analysis"
        / "prototypes"
        / "aflow_prototypes.json.gz"
    )
    data = json.loads(gzip.decompress(path.read_bytes()))
    out = []
    for entry in sorted(data, key=lambda e: e["tags"]["aflow"]):
        snl, tags = entry["snl"], entry["tags"]
        sites = snl["sites"]
        if len(sites) > 12 or any(len(s["species"]) != 1 for s in sites):
            continue
        if any(s["species"][0]["occu"] != 1 for s in sites):
            continue
        lat = snl["lattice"]
        label = next(
            (
                tags[k]
                for k in ("mineral", "strukturbericht")
                if tags.get(k) not in (None, "None", "")
            ),
            tags["aflow"],
        )
        out.append(
            {
                "name": f"{label} prototype ({tags['pearson']}, AFLOW {tags['aflow']})",
                "lattice": [round(lat[k], 6) for k in ("a", "b", "c", "alpha", "beta", "gamma")],
                "sites": [
                    [s["species"][0]["element"], *(round(x % 1.0, 6) for x in s["abc"])]
                    for s in sites
                ],
            }
        )
        if len(out) >= N_CRYSTALS:
            break
    return out


def exp_formulas() -> list[str]:
    import pymatgen.core
    from pymatgen.core import Composition

    path = (
        Path(pymatgen.core.__file__).parents[1]
        / "analysis"
        / "compatibility"
        / "exp_compounds.json.gz"
    )
    data = json.loads(gzip.decompress(path.read_bytes()))
    seen, out = set(), []
    for f in sorted({d["formula"] for d in data}):
        try:
            comp = Composition(f)
        except Exception:
            continue
        if not 2 <= len(comp.elements) <= 4 or comp.num_atoms > 12:
            continue
        if comp.reduced_formula in seen:
            continue
        seen.add(comp.reduced_formula)
        out.append(f)
    step = max(1, len(out) // N_FORMULAS)
    return out[::step][:N_FORMULAS]


# Published sequences (facts), written out by hand; answers depend only on the sequence given.
PEPTIDES = {
    "met-enkephalin": "YGGFM",
    "endomorphin-1": "YPWF",
    "endomorphin-2": "YPFF",
    "dynorphin A": "YGGFLRRIRPKLKWDNQ",
    "nociceptin": "FGGFTGARKSARKLANQ",
    "beta-endorphin": "YGGFMTSEKSQTPLVTLFKNAIIKNAYKKGE",
    "alpha-MSH": "SYSMEHFRWGKPV",
    "ACTH (1-24)": "SYSMEHFRWGKPVGKKRRPVKVYP",
    "somatostatin-14": "AGCKNFFWKTFTSC",
    "calcitonin (human)": "CGNLSTCMLGTYTQDFNKFHTFPQTAIGVGAP",
    "amylin (human)": "KCNTATCATQRLANFLVHSSNNFGAILSSTNVGSNTY",
    "CGRP (alpha, human)": "ACDTATCVTHRLAGLLSRSGGVVKNNFVPTNVGSKAF",
    "secretin (human)": "HSDGTFTSELSRLREGARLQRLLQGLV",
    "VIP": "HSDAVFTDNYTRLRKQMAVKKYLNSILN",
    "exendin-4": "HGEGTFTSDLSKQMEEEAVRLFIEWLKNGGPSSGAPPPS",
    "GLP-2 (human)": "HADGSFSDEMNTILDNLAARDFINWLIQTKITD",
    "ghrelin (human)": "GSSFLSPEHQRVQQRKESKKPPAKLQPR",
    "motilin": "FVPIFTYGELQRMQEKERNKGQ",
    "CCK-8": "DYMGWMDF",
    "kisspeptin-10": "YNWNSFGLRF",
    "ANP (human)": "SLRRSSCFGGRMDRIGAQSGLGCNSFRY",
    "BNP-32 (human)": "SPKMVQGSGCFGRKMDRISSSSGLGCKVLRRH",
    "C-peptide (human)": "EAEDLQVGQVELGGGPGAGSLQPLALEGSLQ",
    "amyloid beta (1-42)": "DAEFRHDSGYEVHHQKLVFFAEDVGSNKGAIIGLMVGGVVIA",
    "amyloid beta (1-40)": "DAEFRHDSGYEVHHQKLVFFAEDVGSNKGAIIGLMVGGVV",
    "LL-37": "LLGDFFRKSKEKIGKEFKRIVQRIKDFLRNLVPRTES",
    "cecropin A": "KWKLFKKIEKVGQNIRDGIIKAGPAVAVVGQATQIAK",
    "indolicidin": "ILPWKWPWWPWRR",
    "mastoparan": "INLKALAALAKKIL",
    "pexiganan": "GIGKFLKKAKKFGKAFVKILKK",
    "aurein 1.2": "GLFDIIKKIAESF",
    "temporin A": "FLPLIGRVLSGIL",
    "buforin II": "TRSSRAGLQFPVGRVHRLLRK",
    "protegrin-1": "RGGRLCYCRRRFCVCVGR",
    "tachyplesin I": "KWCFRVCYRGICYRRCR",
    "HNP-1 defensin": "ACYCRIPACIAGERRYGTCIYQGRLWAFCC",
    "histatin 5": "DSHAKRHHGYKRKFHEKHHSHRGY",
    "apamin": "CNCKAPETALCARRCQQH",
    "alpha-conotoxin GI": "ECCNPACGRHYSC",
    "ziconotide": "CKGKGAKCSRLMYDCCTGSCRSGKC",
    "crambin": "TTCCPSIVARSNFNVCRLPGTPEAICATYTGCIIIPGATCPGDYAN",
    "aprotinin (BPTI)": "RPDFCLEPPYTGPCKARIIRYFYNAKAGLCQTFVYGGCRAKRNNFKSAEDCMRTCGGA",
    "ubiquitin (human)": (
        "MQIFVKTLTGKTITLEVEPSDTIENVKAKIQDKEGIPPDQQRLIFAGKQLEDGRTLSDYNIQKESTLHLVLRLRGG"
    ),
    "Trp-cage TC5b": "NLYIQWLKDGGPSSGRPPPS",
    "villin headpiece HP35": "LSDEDFKAVFGMTRSAFANLPLWKQQNLKKEKGLF",
    "protein G B1 domain": "MTYKLILNGKTLKGETTTEAVDATAEKVFKQYANDNGVDGEWTYDDATKTFTVTE",
    "chignolin": "GYDPETGTWG",
    "hen egg-white lysozyme": (
        "KVFGRCELAAAMKRHGLDNYRGYSLGNWVCAAKFESNFNTQATNRNTDGSTDYGILQINSRWWCNDGRTPGSRNL"
        "CNIPCSALLSSDITASVNCAKKIVSDGNGMNAWVAWRNRCKGTDVQAWIRGCRL"
    ),
    "HIV-1 TAT (47-57)": "YGRKKRRQRRR",
    "penetratin": "RQIKIWFQNRRMKWKK",
    "bivalirudin": "FPRPGGGGNGDFEEIPEEYL",
    "FLAG tag": "DYKDDDDK",
    "HA tag": "YPYDVPDYA",
    "c-myc tag": "EQKLISEEDL",
    "Strep-tag II": "WSHPQFEK",
    "V5 tag": "GKPIPNPLLGLDST",
    "S-tag": "KETAAAKFERQHMDS",
    "AviTag": "GLNDIFEAQKIEWHE",
    "hexahistidine tag": "HHHHHH",
    "GRGDSP": "GRGDSP",
    "glutathione (as a linear tripeptide)": "ECG",
    "thymopentin": "RKDVY",
    "Leu-enkephalin-Arg": "YGGFLR",
    "galanin (human)": "GWTLNSAGYLLGPHAVGNHRSFSDKNGLTS",
    "neuropeptide Y (human)": "YPSKPDNPGEDAPAEDMARYYSALRHYINLITRQRY",
    "orexin B (human)": "RSGPPGLQGRLQRLLQASGNHAAGILTM",
    "obestatin (human)": "FNAPFDVGIKLSGVQYQQHSQAL",
    "urocortin (human)": "DNPSLSIDLTFHLLRTLLELARTQSQRERAEQNRIIFDSV",
    "magainin 1": "GIGKFLHSAGKFGKAFVGEIMKS",
    "dermaseptin S1": "ALWKTMLKKLGTMALHAGKAALGAAADTISQGTQ",
    "PR-39": "RRRPRPPYLPRPRPPPFFPPRLPPRIPPGFPPRFPPRFP",
    "lactoferricin B": "FKCRRWQWRMKKLGAPSITCVRRAF",
}
# One codon per amino acid (frequent in E. coli); the ORFs below are written for scigate.
CODON = {
    "A": "GCG", "C": "TGC", "D": "GAT", "E": "GAA", "F": "TTC", "G": "GGC", "H": "CAT",
    "I": "ATT", "K": "AAA", "L": "CTG", "M": "ATG", "N": "AAC", "P": "CCG", "Q": "CAG",
    "R": "CGT", "S": "AGC", "T": "ACC", "V": "GTG", "W": "TGG", "Y": "TAT",
}  # fmt: skip
ELEMENTS = {
    "SP6 promoter": "ATTTAGGTGACACTATAG",
    "T3 promoter": "AATTAACCCTCACTAAAGGG",
    "M13 forward (-20) primer": "GTAAAACGACGGCCAGT",
    "M13 reverse primer": "CAGGAAACAGCTATGAC",
    "loxP site": "ATAACTTCGTATAGCATACATTATACGAAGTTAT",
    "FRT site": "GAAGTTCCTATTCTCTAGAAAGTATAGGAACTTC",
    "Kozak consensus": "GCCGCCACCATGG",
    "EcoRI-BamHI-HindIII linker": "GAATTCGGATCCAAGCTT",
    "TEV protease site (coding)": "GAAAACCTGTATTTTCAGGGC",
    "thrombin site (coding)": "CTGGTGCCGCGTGGCAGC",
}


def peptides() -> list[dict[str, str]]:
    for name, seq in PEPTIDES.items():
        assert set(seq) <= set(CODON), name
    return [{"name": n, "sequence": s} for n, s in PEPTIDES.items()]


def dna() -> list[dict[str, str]]:
    orfs = [
        {"name": f"coding sequence of {n} (ATG ... TAA)", "sequence": orf(s)}
        for n, s in PEPTIDES.items()
        if len(s) <= 60
    ]
    return orfs + [{"name": n, "sequence": s} for n, s in ELEMENTS.items()]


def orf(peptide: str) -> str:
    """ATG, one codon per residue (a leading Met is not repeated), TAA."""
    body = peptide[1:] if peptide.startswith("M") else peptide
    return "ATG" + "".join(CODON[a] for a in body) + "TAA"


def main() -> None:
    pools = json.loads(OUT.read_text()) if OUT.exists() else {}
    pools["molecules"] = {
        "source": "NCI Open Database sample shipped with RDKit (rdkit/Data/NCI/first_5K.smi); "
        "filtered by scripts/make_bench_pools.py",
        "license": "NCI Open Database: public domain (US Government work); "
        "distributed with RDKit under BSD-3-Clause",
        "items": nci_smiles(),
    }
    pools["crystals"] = {
        "source": "AFLOW Library of Crystallographic Prototypes (Mehl et al., Comput. Mater. "
        "Sci. 136, S1 (2017), doi:10.1016/j.commatsci.2017.01.017), as shipped with pymatgen "
        "(pymatgen/analysis/prototypes/aflow_prototypes.json.gz); ordered, <= 12 sites",
        "license": "structures are facts; distributed with pymatgen under MIT (cite the AFLOW "
        "publication)",
        "items": aflow_crystals(),
    }
    pools["formulas"] = {
        "source": "formulas of pymatgen's experimental formation-energy compounds "
        "(pymatgen/analysis/compatibility/exp_compounds.json.gz), 2-4 elements",
        "license": "formulas are facts; distributed with pymatgen under MIT",
        "items": exp_formulas(),
    }
    pools["proteins"] = {
        "source": "published sequences of well-known peptides and small proteins (facts), "
        "written out by hand in scripts/make_bench_pools.py",
        "license": "CC0-1.0 (sequences are facts; this list was written for scigate)",
        "items": peptides(),
    }
    pools["dna"] = {
        "source": "coding sequences written for scigate from the peptides above (ATG, one "
        "E. coli-preferred codon per residue, TAA) and common cloning elements (facts)",
        "license": "CC0-1.0",
        "items": dna(),
    }
    OUT.write_text(json.dumps(pools, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print({k: len(v["items"]) for k, v in pools.items()})


if __name__ == "__main__":
    main()
