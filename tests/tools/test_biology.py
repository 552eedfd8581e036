"""Biology tools (Biopython): reference values, seeded randomness, bad input, web clients offline."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import pytest
import respx
from _library_calls import assert_offline_tools_refuse_garbage, fail, run, tools_of

from scigate.tools import REGISTRY

MODULES = [
    "biology",
    "biology_codons",
    "biology_common",
    "biology_motifs",
    "biology_peptides",
    "biology_protein",
    "biology_seqanalysis",
    "biology_structure",
    "biology_web",
]
tools_of(MODULES)  # imports the modules, registering their tools

DATA = Path(__file__).parent / "data"
INSULIN = (  # human preproinsulin, UniProt P01308
    "MALWMRLLPLLALLALWGPDPAAAFVNQHLCGSHLVEALYLVCGERGFFYTPKTRREAEDLQVGQVELGGGPGAGSLQPLALEGSLQKR"
    "GIVEQCCTSICSLYQLENYCN"
)


def bio_tools():
    return tools_of(MODULES)


# --- reference values -----------------------------------------------------------------------


def test_translation_orf_and_strands():
    assert run("TranslateDNAtoAminoAcidSequence", dna="ATGGCCATTGTAATGGGCCGCTGA") == "MAIVMGR*"
    assert run("TranslateDNAtoAminoAcidSequence", dna="ATGGCCTGA", to_stop=True) == "MA"
    # frame -1 reads the reverse complement TCAGGCCAT -> S G H
    assert run("TranslateDNAtoAminoAcidSequence", dna="ATGGCCTGA", frame=-1) == "SGH"
    # vertebrate mitochondrial code (table 2): TGA is Trp
    assert run("TranslateDNAtoAminoAcidSequence", dna="ATGTGA", table=2) == "MW"
    assert run("GetReverseComplement", dna="AAGCTTN") == "NAAGCTT"
    assert run("TranscribeDNAtoRNA", dna="ATGT") == "AUGU"
    assert run("BackTranscribeRNAtoDNA", rna="AUGU") == "ATGT"
    orf_seq = "GG" + "ATG" + "GCT" * 30 + "TAA" + "CC"
    orfs = run("FindORF", dna=orf_seq)
    assert orfs[0] == {
        "strand": "+",
        "frame": 3,
        "start": 3,
        "end": 98,
        "length_nt": 96,
        "protein": "M" + "A" * 30,
    }
    # the same ORF on the reverse strand is reported in forward coordinates
    rc = run("GetReverseComplement", dna=orf_seq)
    rev = run("FindORF", dna=rc)[0]
    assert (rev["strand"], rev["start"], rev["end"]) == ("-", 3, 98)


def test_dna_molecular_weights_are_consistent():
    seq = "ATGC"
    ss = run("CalculateSingleLinearDNAMolecularWeight", dna=seq)
    # dAMP + dTMP + dGMP + dCMP minus 3 waters of the phosphodiester bonds
    monophosphates = 331.2218 + 322.2085 + 347.2212 + 307.1971
    assert ss == pytest.approx(monophosphates - 3 * 18.0153, rel=1e-4)
    ds = run("CalculateDoubleLinearDNAMolecularWeight", dna=seq)
    comp = run("CalculateSingleLinearDNAMolecularWeight", dna="GCAT")
    assert ds == pytest.approx(ss + comp, rel=1e-9)
    # closing a circle removes one water per strand
    assert run("CalculateSingleCircleDNAMolecularWeight", dna=seq) == pytest.approx(
        ss - 18.0153, abs=1e-3
    )
    assert run("CalculateDoubleCircleDNAMolecularWeight", dna=seq) == pytest.approx(
        ds - 2 * 18.0153, abs=1e-3
    )


def test_gc_and_composition():
    value = run("NucleicAcidGCCalculator", sequence="GCGCAU", window_size=3)
    assert value["gc_percent"] == pytest.approx(400 / 6)
    assert [w["gc_percent"] for w in value["windows"]] == pytest.approx([100.0, 100 / 3])
    assert run("NucleotideComposition", sequence="GGA")["counts"] == {"A": 1, "G": 2}


def test_protparam_matches_expasy_for_preproinsulin():
    # ExPASy ProtParam, P01308: MW 11981.0 Da, theoretical pI 5.22
    pi_mw = run("ComputePiMw", protein=INSULIN)
    assert pi_mw["mw"] == pytest.approx(11981.0, rel=1e-4)
    assert pi_mw["pi"] == pytest.approx(5.22, abs=0.01)
    params = run("ComputeProtPara", protein=INSULIN)
    assert params["length"] == 110
    # Pace et al.: 2 Trp x 5500 + 4 Tyr x 1490 (+ 3 cystines x 125)
    assert params["extinction_coefficient_reduced"] == 2 * 5500 + 4 * 1490
    assert params["extinction_coefficient_cystines"] == 2 * 5500 + 4 * 1490 + 3 * 125
    assert params["stable"] == (params["instability_index"] < 40)
    ext = run("ComputeExtinctionCoefficient", protein=INSULIN, absorbance_280=1.0)
    assert ext["concentration_mg_per_ml"] == pytest.approx(params["molecular_weight"] / 16960)


def test_isoelectric_point_sets():
    # a free amino acid without ionisable side chain: pI = (pKa N-term + pKa C-term) / 2
    assert run(
        "ProteinIsoelectricPointCalculator", protein="G", pka_source="EMBOSS"
    ) == pytest.approx(6.1)
    assert run(
        "ProteinIsoelectricPointCalculator", protein="G", pka_source="Solomon"
    ) == pytest.approx(6.0)
    basic = run("ProteinIsoelectricPointCalculator", protein="KKKKR")
    acidic = run("ProteinIsoelectricPointCalculator", protein="DDEEE")
    assert basic > 10 and acidic < 4.5
    assert "unknown pKa source" in fail(
        "ProteinIsoelectricPointCalculator", protein="G", pka_source="X"
    )


def test_protscale_and_amino_acid_counts():
    profile = run("ComputeProtScale", protein="IIIIIRRRRR", window=5)
    assert profile[0] == {"position": 3, "score": pytest.approx(4.5)}
    assert profile[-1]["score"] == pytest.approx(-4.5)
    assert len(profile) == 6
    stats = run("AminoAcidStatistics", protein="MKKW")
    assert stats["counts"] == {"K": 2, "M": 1, "W": 1}
    freq = run("GetAminoAcidFrequency", protein="MKKW")
    assert sum(freq.values()) == pytest.approx(1.0) and freq["K"] == 0.5


def test_pairwise_alignments():
    g = run("DoubleSequenceGlobalAlignment", seq_a="MKTAYIAKQR", seq_b="MKTAYIAKQR")
    assert g["identity_percent"] == 100.0 and g["gaps"] == 0
    # BLOSUM62 diagonal: M5 K5 T5 A4 Y7 I4 A4 K5 Q5 R5
    assert g["score"] == 49.0
    d = run("DoubleSequenceGlobalAlignment", seq_a="ACGTACGT", seq_b="ACGAACGT")
    assert d["type"] == "dna" and d["identity"] == 7 and d["score"] == 7 * 5 - 4
    loc = run("DoubleSequenceLocalAlignment", seq_a="PPPPHEAGAWGHEEPPPP", seq_b="WWHEAGAWGHEEWW")
    assert loc["aligned_a"] == "HEAGAWGHEE" and loc["start_a"] == 5 and loc["start_b"] == 3
    sim = run("SequenceSimilarityCalculator", alignment=">x\nMKV\n>y\nMRV\n")
    assert sim["pairs"][0]["identity_percent"] == pytest.approx(200 / 3)
    assert sim["pairs"][0]["similarity_percent"] == 100.0  # K/R is +2 in BLOSUM62


def test_compare_circular_dna_finds_rotation_and_strand():
    a = "ATGCGTACCGTTAGCATTGCA"
    rotated = a[7:] + a[:7]
    res = run("CompareCircularDNA", seq_a=a, seq_b=rotated)
    assert res["same_molecule"] and res["identity_percent"] == 100.0 and res["rotation"] == 14
    rc = run("GetReverseComplement", dna=rotated)
    assert run("CompareCircularDNA", seq_a=a, seq_b=rc)["strand"] == "-"
    mutated = a[:3] + "A" + a[4:]
    res = run("CompareCircularDNA", seq_a=a, seq_b=mutated)
    assert not res["same_molecule"] and res["identity_percent"] == pytest.approx(100 * 20 / 21)


def test_restriction_sites_and_digest():
    seq = "GAATTCAAAGGATCCTTTAAGCTTGAATTC"
    sites = run("SummaryEnzymeCleavageSites", dna=seq, enzymes="EcoRI BamHI NotI")
    assert sites["cutters"]["EcoRI"] == {"count": 2, "positions": [2, 26]}
    assert sites["non_cutters"] == ["NotI"]
    assert run("RestrictionDigestFragments", dna=seq, enzymes="BamHI")["fragments"] == [20, 10]
    assert "unknown restriction enzyme" in fail(
        "SummaryEnzymeCleavageSites", dna=seq, enzymes="EcoRX"
    )


def test_cpg_island_criteria():
    island = run("CpGIslandPrediction", dna="AT" * 150 + "CG" * 150 + "AT" * 150)
    assert len(island) == 1 and island[0]["gc_percent"] > 50 and island[0]["obs_exp_cpg"] > 0.6
    # GC-rich (80 %) but without any CpG step: obs/exp = 0, no island
    assert run("CpGIslandPrediction", dna="GGCCA" * 80) == []
    # a short CpG-rich stretch (< 200 bp) is no island
    assert run("CpGIslandPrediction", dna="CG" * 50) == []


def test_palindromes_repeats_and_codons():
    pals = run("PalindromicSequencesFinder", sequence="AAAGGATCCAAA", min_length=6)
    assert [p["sequence"] for p in pals] == ["GGATCC"]
    reps = run("RepeatDNASequenceSearch", dna="CATCATCAT", length=3)
    assert reps[0] == {"repeat": "CAT", "count": 3, "positions": [1, 4, 7]}
    nnk = run("CalculateAminoAcidbyDegenerateCodon", codon="NNK")
    assert nnk["codons"] == 32 and len(nnk["amino_acids"]) == 21 and nnk["counts"]["*"] == 1
    best = run("DegenerateCodonCalculatorbyAminoAcid", amino_acids="ACDEFGHIKLMNPQRSTVWY")
    assert best["unwanted"] == [] and best["encoded"] == list("ACDEFGHIKLMNPQRSTVWY")
    # covering all 20 amino acids never needs more codons than NNK (32)
    assert best["codons"] <= 32
    assert run("BackTranslateProtein", protein="LR") == "YTNMGN"
    usage = run("CodonUsage", dna="GCTGCCGCT")
    assert usage["usage"]["GCT"]["rscu"] == pytest.approx(4 * 2 / 3)


def test_pcr_primers():
    props = run("PCRPrimerProperties", sequence="GTAAAACGACGGCCAGT")
    primer = props["primers"][0]
    assert primer["length"] == 17
    assert primer["gc_percent"] == pytest.approx(100 * 9 / 17)
    assert primer["tm_wallace"] == 2 * 8 + 4 * 9  # Wallace rule 2(A+T) + 4(G+C)
    assert 45 < primer["tm_nn"] < 55
    assert props["annealing_temperature"] == pytest.approx(primer["tm_nn"] - 5)


def test_digestion_and_peptide_masses():
    dig = run("ProteaseDigestion", protein="AKPRGKLMR", protease="Trypsin")
    assert dig["sites"] == [4, 6]  # no cut before P
    assert [p["sequence"] for p in dig["products"]] == ["AKPR", "GK", "LMR"]
    masses = run("PredictPeptideMass", protein="GKLMK", missed_cleavages=1)
    lys = next(m for m in masses if m["sequence"] == "GK")
    # monoisotopic Gly-Lys: Gly 75.032028 + Lys 146.105528 - H2O 18.010565
    assert lys["mass"] == pytest.approx(75.032028 + 146.105528 - 18.010565, abs=1e-4)
    assert lys["mh_plus"] == pytest.approx(lys["mass"] + 1.007276)
    assert {m["sequence"] for m in masses} == {"GK", "LMK", "GKLMK"}
    cuts = run("CutPeptide", protein="MFKD")
    assert cuts["chymotrypsin"] == [2] and cuts["cnbr"] == [1] and cuts["asp-n"] == [3]
    assert "unknown protease" in fail("ProteaseDigestion", protein="AK", protease="papain-x")


def test_peptide_libraries():
    ala = run("AlanineScanningLibraryDesign", protein="MKA")
    assert [v["mutation"] for v in ala] == ["M1A", "K2A"]
    trunc = run("TruncationLibraryDesign", protein="MKTAYI", min_length=4)
    assert [v["sequence"] for v in trunc] == ["KTAYI", "TAYI", "MKTAY", "MKTA"]
    over = run(
        "OverlapPeptideLibraryDesign",
        protein="AMCDEFGHIK",
        peptide_length=4,
        overlap=1,
    )
    assert [v["start"] for v in over] == [1, 4, 7]
    scan = run("PositionalScanningLibraryDesign", protein="MKT", position=2)
    assert len(scan) == 19 and all(v["sequence"][1] != "K" for v in scan)


# --- seeded randomness ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("RandomDNAGeneration", {"length": 50}),
        ("GenerateRandSequence", {"length": 50}),
        ("RandomMutation", {"protein": "MKTAYIAKQRQISFVKSHFSRQ"}),
    ],
)
def test_seeded_tools_are_reproducible(name, args):
    a = run(name, **args, seed=11)
    assert run(name, **args, seed=11) == a
    others = {run(name, **args, seed=s) for s in range(12, 17)}
    assert any(o != a for o in others)


def test_random_outputs_are_valid():
    dna = run("RandomDNAGeneration", length=2000, seed=1, gc_content=0.7)
    assert set(dna) <= set("ACGT") and 0.65 < (dna.count("G") + dna.count("C")) / 2000 < 0.75
    protein = run("GenerateRandSequence", length=100, seed=2)
    assert len(protein) == 100 and set(protein) <= set("ACDEFGHIKLMNPQRSTVWY")
    wt = "MKTAYIAKQR"
    mutant = run("RandomMutation", protein=wt, seed=5)
    assert sum(x != y for x, y in zip(wt, mutant, strict=True)) == 1


# --- PDB file tools ----------------------------------------------------------------------------


def test_pdb_tools_on_fixture():
    path = str(DATA / "glycine_backbone.pdb")
    text = (DATA / "glycine_backbone.pdb").read_text()
    assert run("AnalyzeAtomCount", pdb=text) == 4
    # tools never read paths (over MCP that would expose the server's files)
    assert "file name" in REGISTRY["AnalyzeAtomCount"].call({"pdb": path}).error
    assert run("CalculateMolecularWeight", pdb=text) == pytest.approx(
        14.007 + 2 * 12.011 + 15.999, abs=0.01
    )
    assert run("CalculateAtomDistance", pdb=text) == pytest.approx(1.458, abs=1e-3)
    assert run("CalculateAtomDistance", pdb=text, atom_i=2, atom_j=3) == pytest.approx(
        math.dist((1.458, 0, 0), (2.009, 1.420, 0)), abs=1e-3
    )
    avg = run("CalculateAverageCoordinates", pdb=text)
    assert avg == pytest.approx([(1.458 + 2.009 + 1.251) / 4, (1.420 + 2.390) / 4, 0.0], abs=1e-4)
    fixed = run("FixPDBFile", pdb=text)
    assert fixed.splitlines()[1].startswith("CRYST1") and run("FixPDBFile", pdb=fixed) == fixed


# --- bad input ----------------------------------------------------------------------------------


def test_invalid_dna_message_names_character_and_position():
    err = fail("GetReverseComplement", dna="ACGTXA")
    assert (
        "invalid DNA sequence: unexpected character 'X' at position 5; allowed A, C, G, T (and N)"
        in err
    )


@pytest.mark.parametrize(
    ("name", "args", "needle"),
    [
        ("TranslateDNAtoAminoAcidSequence", {"dna": ""}, "empty"),
        ("TranslateDNAtoAminoAcidSequence", {"dna": "ATG", "frame": 4}, "frame"),
        ("TranslateDNAtoAminoAcidSequence", {"dna": "ATGAAA", "table": 99}, "genetic code"),
        ("CalculateSingleLinearDNAMolecularWeight", {"dna": "ACGN"}, "'N' at position 4"),
        (
            "ComputeProtPara",
            {"protein": "MKB"},
            "invalid protein sequence: unexpected character 'B' at position 3",
        ),
        ("ComputePiMw", {"protein": "   "}, "empty"),
        ("ComputeProtScale", {"protein": "MKT", "window": 4}, "odd"),
        ("ComputeProtScale", {"protein": "MKTAYIAKQR", "scale": "nope"}, "unknown scale"),
        ("BackTranscribeRNAtoDNA", {"rna": "AUGT"}, "'T' at position 4"),
        ("CalculateAminoAcidbyDegenerateCodon", {"codon": "NNKK"}, "3 letters"),
        ("CalculateAminoAcidbyDegenerateCodon", {"codon": "NZK"}, "'Z'"),
        ("ConvertProteinThreeToOneLetter", {"sequence": "MetFooLys"}, "unknown code 'Foo'"),
        ("SequenceSimilarityCalculator", {"alignment": ">a\nMK\n>b\nMKV\n"}, "equal length"),
        ("SequenceSimilarityCalculator", {"alignment": "MKV"}, "FASTA"),
        ("AnalyzeAtomCount", {"pdb": "hello world"}, "no ATOM/HETATM"),
        ("AnalyzeAtomCount", {"pdb": "/nonexistent/x.pdb"}, "file name"),
        ("PositionalScanningLibraryDesign", {"protein": "MK", "position": 3}, "at most 2"),
        ("RandomDNAGeneration", {"length": 0}, "positive"),
        ("RandomDNAGeneration", {"length": "ten"}, "length"),
        (
            "OverlapPeptideLibraryDesign",
            {"protein": "MKTAY", "peptide_length": 3, "overlap": 3},
            "overlap",
        ),
        ("FetchProteinStructureFromPDBID", {"pdb_id": "12"}, "invalid PDB ID"),
        ("PerformBlastQuery", {"protein": "MK1"}, "'1' at position 3"),
    ],
)
def test_bad_input_is_reported(name, args, needle):
    assert needle in fail(name, **args)


def test_every_offline_tool_survives_garbage():
    assert_offline_tools_refuse_garbage(bio_tools())


def test_tools_declare_biology_metadata():
    tools = bio_tools()
    assert len(tools) >= 55
    for t in tools:
        assert t.spec.category == "biology"
        assert t.spec.functionality and t.spec.inputs and t.spec.outputs
        assert t.spec.network or t.spec.examples, f"{t.name} has no checked example"


# --- web services ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("GetFASTAFromName", {"name": "insulin"}),
        ("FetchProteinStructureFromPDBID", {"pdb_id": "1CRN"}),
        ("AnalyzeProteinLengthFromPDB", {"pdb_id": "1CRN"}),
        ("GetCoronaOrthologs", {"entry": "P0DTC2"}),
        ("PerformBlastQuery", {"protein": "MKTAYIAKQR"}),
    ],
)
def test_web_tools_offline_fail_fast(name, args):
    with respx.mock(assert_all_called=False) as mock:
        mock.route().mock(side_effect=httpx.ConnectError("no network"))
        err = fail(name, **args)
        assert mock.calls.call_count == 1  # one refused request and an answer: no retrying
    assert "network unavailable" in err


def test_web_tools_parse_service_responses():
    with respx.mock(assert_all_called=True) as mock:
        mock.get("https://rest.uniprot.org/uniprotkb/search").mock(
            return_value=httpx.Response(200, text=">sp|P01308|INS_HUMAN Insulin\nMALWMRLLPL\n")
        )
        mock.get("https://data.rcsb.org/rest/v1/core/entry/1CRN").mock(
            return_value=httpx.Response(
                200, json={"rcsb_entry_info": {"deposited_polymer_monomer_count": 46}}
            )
        )
        mock.get("https://omabrowser.org/api/protein/P01308/orthologs/").mock(
            return_value=httpx.Response(
                200,
                json=[
                    {
                        "omaid": "PANTR12345",
                        "canonicalid": "H2Q",
                        "species": {"species": "Pan troglodytes"},
                        "rel_type": "1:1",
                    }
                ],
            )
        )
        assert run("GetFASTAFromName", name="insulin").startswith(">sp|P01308")
        assert run("AnalyzeProteinLengthFromPDB", pdb_id="1crn") == 46
        assert run("GetCoronaOrthologs", entry="P01308") == [
            {
                "omaid": "PANTR12345",
                "canonicalid": "H2Q",
                "species": "Pan troglodytes",
                "relation": "1:1",
            }
        ]
        request = mock.calls[0].request
        assert "reviewed%3Atrue" in str(request.url) and "format=fasta" in str(request.url)
