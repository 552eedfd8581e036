"""The molecules the chemistry families draw from: salts, charged forms, tautomers and
isotope labels, so that the realistic mistakes (salt kept, charges left, tautomer as
given, labels dropped, Kekulé SMARTS) change the computed value."""

from __future__ import annotations

#: (name, SMILES as supplied, e.g. by a vendor: counter-ions and charges included)
MOLECULES: list[tuple[str, str]] = [
    ("sodium aspirinate", "[Na+].CC(=O)Oc1ccccc1C(=O)[O-]"),
    ("amitriptyline hydrochloride", "C[NH+](C)CCC=C1c2ccccc2CCc2ccccc21.[Cl-]"),
    ("nicotine-d3 hydrochloride", "Cl.[2H]C([2H])([2H])N1CCC[C@H]1c1cccnc1"),
    (
        "imatinib mesylate",
        "CS(=O)(=O)O.Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
    ),
    ("sodium salicylate", "[Na+].[O-]C(=O)c1ccccc1O"),
    ("clomipramine maleate", r"OC(=O)/C=C\C(=O)O.CN(C)CCCN1c2ccccc2CCc2ccc(Cl)cc21"),
    ("ibuprofen sodium", "C[C@@H](C(=O)[O-])c1ccc(CC(C)C)cc1.[Na+]"),
    ("dopamine hydrochloride", "Cl.NCCc1ccc(O)c(O)c1"),
    ("potassium 2-pyridinolate", "[K+].[O-]c1ccccn1"),
    ("sodium 4-hydroxycoumarin-3-ide", "[Na+].[O-]c1c2ccccc2oc(=O)c1"),
    ("6-methyluracil sodium", "[Na+].Cc1cc(=O)[n-]c(=O)[nH]1"),
    ("pyridoxine hydrochloride", "Cl.Cc1ncc(CO)c(CO)c1O"),
    ("sulfamethoxazole sodium", "[Na+].Cc1cc([N-]S(=O)(=O)c2ccc(N)cc2)no1"),
    ("metformin hydrochloride", "Cl.CN(C)C(=N)N=C(N)N"),
    ("8-hydroxyquinoline sulfate", "OS(=O)(=O)O.Oc1cccc2cccnc12"),
    ("benzoic acid-d5 sodium", "[Na+].[2H]c1c([2H])c([2H])c(C(=O)[O-])c([2H])c1[2H]"),
    ("fluconazole mesylate", "CS(=O)(=O)O.OC(Cn1cncn1)(Cn1cncn1)c1ccc(F)cc1F"),
    ("2-mercaptobenzimidazole sodium", "[Na+].[S-]c1nc2ccccc2[nH]1"),
    ("histamine dihydrochloride", "Cl.Cl.NCCc1c[nH]cn1"),
    ("phenytoin sodium", "[Na+].O=C1[N-]C(=O)C(c2ccccc2)(c2ccccc2)N1"),
    ("propranolol hydrochloride", "Cl.CC(C)NCC(O)COc1cccc2ccccc12"),
    ("diclofenac sodium", "[Na+].[O-]C(=O)Cc1ccccc1Nc1c(Cl)cccc1Cl"),
    ("lidocaine hydrochloride", "Cl.CCN(CC)CC(=O)Nc1c(C)cccc1C"),
    ("naproxen sodium", "[Na+].COc1ccc2cc([C@H](C)C(=O)[O-])ccc2c1"),
    ("ranitidine hydrochloride", r"Cl.CNC(=C/[N+](=O)[O-])\NCCSCc1ccc(CN(C)C)o1"),
    ("procaine hydrochloride", "Cl.CCN(CC)CCOC(=O)c1ccc(N)cc1"),
    ("verapamil hydrochloride", "Cl.COc1ccc(CCN(C)CCCC(C#N)(C(C)C)c2ccc(OC)c(OC)c2)cc1OC"),
    ("tramadol hydrochloride", "Cl.COc1cccc([C@]2(O)CCCC[C@@H]2CN(C)C)c1"),
    ("quinine sulfate", "OS(=O)(=O)O.COc1ccc2nccc([C@@H](O)[C@@H]3C[C@@H]4CCN3C[C@@H]4C=C)c2c1"),
    ("sodium valproate", "[Na+].CCCC(CCC)C([O-])=O"),
    ("allopurinol sodium", "[Na+].O=c1[n-]cnc2[nH]ncc12"),
    ("theophylline sodium", "[Na+].Cn1c(=O)c2[n-]cnc2n(C)c1=O"),
    ("paracetamol-d4", "[2H]c1c([2H])c(NC(C)=O)c([2H])c([2H])c1O"),
    (
        "caffeine-d9 citrate",
        "OC(=O)CC(O)(CC(=O)O)C(=O)O.[2H]C([2H])([2H])n1cnc2c1c(=O)n(C([2H])([2H])[2H])c(=O)n2C([2H])([2H])[2H]",
    ),
    ("warfarin sodium", "[Na+].CC(=O)CC(c1ccccc1)c1c([O-])c2ccccc2oc1=O"),
    ("barbital sodium", "[Na+].CCC1(CC)C(=O)[N-]C(=O)NC1=O"),
    ("cimetidine hydrochloride", "Cl.CN=C(NC#N)NCCSCc1[nH]cnc1C"),
    ("5-fluorouracil sodium", "[Na+].O=c1[n-]cc(F)c(=O)[nH]1"),
]
