"""Materials Project molecule tools (MPcules), by molecule_id or formula.

Summary fields come from ``/molecules/summary/?molecule_ids=<id>&_fields=...``; the
thermochemistry, vibration and orbital (NBO) documents from ``/molecules/thermo/``,
``/molecules/vibrations/`` and ``/molecules/orbitals/``, which hold one document per level
of theory and solvent. Requests go through the shared client and factory of
`materials_project`.
"""

from __future__ import annotations

from typing import Any

from scigate.tools._tool import ToolInputError, tool
from scigate.tools._vocabulary import check_value
from scigate.tools.library.materials_project import (
    FORMULA,
    MATERIAL_ID,
    MP_SOURCE,
    MPField,
    MPKey,
    mp_documents,
    register_mp_tools,
)

MOLECULE_ID = "molecule_id"


def clean_molecule_id(molecule_id: str) -> str:
    """An MPculeID ("<hash>-C2H4-0-1") or older molecule ID ("mpcule-1234")."""
    return check_value(MOLECULE_ID, molecule_id if isinstance(molecule_id, str) else "")


MOLECULE = MPKey(
    MOLECULE_ID,
    "molecule_ids",
    clean_molecule_id,
    "a molecule",
    "chemistry",
    ("molecule", "Materials Project"),
    ("computational chemistry", "electrolyte screening"),
    root="molecules",
)


def _m(name: str, what: str, field: str, output: str, endpoint: str = "summary") -> MPField:
    per_lot = endpoint != "summary"
    return MPField(name, what, (field,), output, endpoint=endpoint, key=MOLECULE, per_lot=per_lot)


def _each(name: str, what: str, field: str, output: str, endpoint: str) -> MPField:
    return MPField(name, what, (field,), output, endpoint=endpoint, key=MOLECULE, returns="each")


MOLECULE_TABLE: list[MPField] = [
    # /molecules/summary/
    _m("GetChargeByMoleculeId", "the charge", "charge", "charge"),
    _m("GetSpinMultiplicityByMoleculeId", "the spin multiplicity", "spin_multiplicity", "spin multiplicity"),
    _m("GetNatomsByMoleculeId", "the number of atoms", "natoms", "Number of atoms"),
    _m("GetElementsByMoleculeId", "the elements", "elements", "elements"),
    _m("GetNelementsByMoleculeId", "the number of elements", "nelements", "number of elements"),
    _m("GetNelectronsByMoleculeId", "the number of electrons", "nelectrons", "number of electrons"),
    _m("GetCompositionByMoleculeId", "the composition", "composition", "composition"),
    _m("GetFormulaAlphabeticalByMoleculeId", "the alphabetical formula", "formula_alphabetical", "alphabetical formula"),
    _m("GetFormulaPrettyByMoleculeId", "the pretty formula", "formula_pretty", "pretty formula"),
    _m("GetFormulaAnonymousByMoleculeId", "the anonymous formula", "formula_anonymous", "anonymous formula"),
    _m("GetChemsysByMoleculeId", "the chemical system", "chemsys", "chemical system"),
    _m("GetSymmetryByMoleculeId", "the point-group symmetry", "symmetry", "symmetry"),
    _m("GetPropertyNameByMoleculeId", "the property name of the summary document", "property_name", "property name"),
    _m("GetPropertyIdByMoleculeId", "the property id of the summary document", "property_id", "property id"),
    _m("GetDeprecatedByMoleculeId", "whether the entry is deprecated", "deprecated", "Deprecated Status"),
    _m("GetDeprecationReasonsByMoleculeId", "the deprecation reasons", "deprecation_reasons", "deprecation reasons"),
    _m("GetLevelOfTheoryByMoleculeId", "the level of theory", "level_of_theory", "level of theory"),
    _m("GetSolventByMoleculeId", "the solvent", "solvent", "solvent"),
    _m("GetLotSolventByMoleculeId", "the combined level of theory and solvent", "lot_solvent", "solvent lot"),
    _m("GetLastUpdatedTimeByMoleculeId", "the last-updated time", "last_updated", "last updated time"),
    _m("GetWarningsByMoleculeId", "the warnings", "warnings", "warnings"),
    _m("GetOriginsByMoleculeId", "the origins (calculation task IDs) of its properties", "origins", "origins"),
    _m("GetMoleculeLevelsOfTheoryByMoleculeId", "the level of theory of each of its calculations", "molecule_levels_of_theory", "Molecule Levels of Theory"),
    _m("GetSpeciesHashByMoleculeId", "the species (graph) hash", "species_hash", "Species Hash"),
    _m("GetCoordHashByMoleculeId", "the coordinate hash", "coord_hash", "Coord Hash"),
    _m("GetInchiByMoleculeId", "the InChI", "inchi", "InChI"),
    _m("GetInchikeyByMoleculeId", "the InChIKey", "inchi_key", "InChIKey"),
    _m("GetSimilarMoleculesByMoleculeId", "the IDs of similar molecules", "similar_molecules", MATERIAL_ID),
    _m("GetConstituentMoleculesByMoleculeId", "the IDs of its constituent molecules", "constituent_molecules", MOLECULE_ID),
    _m("GetUniqueCalcTypesByMoleculeId", "the distinct calculation types", "unique_calc_types", "Unique Calculation Types"),
    _m("GetUniqueTaskTypesByMoleculeId", "the distinct task types", "unique_task_types", "Unique Task Types"),
    _m("GetUniqueLevelsOfTheoryByMoleculeId", "the distinct levels of theory", "unique_levels_of_theory", "Unique Levels of Theory"),
    _m("GetUniqueSolventsByMoleculeId", "the distinct solvents", "unique_solvents", "Unique Solvents"),
    _m("GetUniqueLotSolventsByMoleculeId", "the distinct level-of-theory/solvent combinations", "unique_lot_solvents", "Unique Lot Solvents"),
    # /molecules/thermo/
    _each("GetThermoPropertyIdsByMoelculeId", "the property ids of the thermochemistry documents", "property_id", "Thermo Property IDs", "thermo"),
    _each("GetThermoLevelsOfTheoryByMoleculeId", "the levels of theory of the thermochemistry documents", "level_of_theory", "Thermo Levels of Theory", "thermo"),
    _m("GetElectronicEnergyByMoelculeId", "the electronic energy (eV)", "electronic_energy", "electronnic energy", "thermo"),
    _m("GetZeroPointEnergyByMoleculeId", "the zero-point energy (eV)", "zero_point_energy", "zero point energy", "thermo"),
    _m("GetTotalEnthalpyByMoleculeId", "the total enthalpy (eV)", "total_enthalpy", "total enthalpy", "thermo"),
    _m("GetTotalEntropyByMoleculeId", "the total entropy (eV/K)", "total_entropy", "total entropy", "thermo"),
    _m("GetTranslationalEnthalpyByMoleculeId", "the translational enthalpy (eV)", "translational_enthalpy", "translational enthalpy", "thermo"),
    _m("GetTranslationalEntropyByMoleculeId", "the translational entropy (eV/K)", "translational_entropy", "translational entropy", "thermo"),
    _m("GetRotationalEnthalpyByMoleculeId", "the rotational enthalpy (eV)", "rotational_enthalpy", "rotational enthalpy", "thermo"),
    _m("GetRotationalEntropyByMoleculeId", "the rotational entropy (eV/K)", "rotational_entropy", "rotational entropy", "thermo"),
    _m("GetVibrationalEnthalpyByMoleculeId", "the vibrational enthalpy (eV)", "vibrational_enthalpy", "vibrational enthalpy", "thermo"),
    _m("GetVibrationalEnthalpyByMoelculeId", "the vibrational enthalpy (eV)", "vibrational_enthalpy", "vibrational enthalpy", "thermo"),
    _m("GetVibrationalEntropyByMoleculeId", "the vibrational entropy (eV/K)", "vibrational_entropy", "vibrational entropy", "thermo"),
    _m("GetFreeEnergyByMoleculeId", "the Gibbs free energy at 298.15 K (eV)", "free_energy", "free energy", "thermo"),
    # /molecules/vibrations/
    _each("GetVibrationPropertyIdsByMoleculeId", "the property ids of the vibration documents", "property_id", "vibration property ids", "vibrations"),
    _each("GetVibrationLevelsOfTheoryByMoleculeId", "the levels of theory of the vibration documents", "level_of_theory", "vibration levels of theory", "vibrations"),
    _m("GetFrequenciesByMoleculeId", "the vibrational frequencies (cm⁻¹)", "frequencies", "frequencies", "vibrations"),
    _m("GetFrequencyModesByMoleculeId", "the normal-mode vectors of each frequency", "frequency_modes", "frequency modes", "vibrations"),
    _m("GetIrIntensitiesByMoleculeId", "the IR intensities of each mode", "ir_intensities", "ir intensities", "vibrations"),
    _m("GetIrActivitiesByMoleculeId", "whether each mode is IR active", "ir_activities", "ir activities", "vibrations"),
    # /molecules/orbitals/
    _each("GetOrbitalsPropertyIdsByMoleculeId", "the property ids of the orbital (NBO) documents", "property_id", "orbitals property ids", "orbitals"),
    _each("GetOrbitalsLevelsOfTheoryByMoleculeId", "the levels of theory of the orbital (NBO) documents", "level_of_theory", "orbitals levels of theory", "orbitals"),
    _m("GetOpenShellByMoleculeId", "whether it is open-shell", "open_shell", "open shell", "orbitals"),
    _m("GetNboPopulationByMoleculeId", "the natural bond orbital (NBO) population of each atom", "nbo_population", "Natural Bond Orbital(nbo) population", "orbitals"),
]  # fmt: skip

register_mp_tools(MOLECULE_TABLE, __name__)


def _molecule_formula(formula: str) -> str:
    """The formula as MP's molecule search matches it: the unreduced alphabetical formula
    of the summary documents ("C2 H4", "H2 O1")."""
    from scigate.tools.library.materials_composition import load_composition

    return load_composition(formula).alphabetical_formula


@tool(
    name="GetMoleculeIdByFormula",
    functionality=(
        "Get the Materials Project molecule IDs (with charge and spin multiplicity) of all "
        "molecules with a given formula (not reduced: C2H4 is not CH2)."
    ),
    inputs=[FORMULA],
    outputs=[MOLECULE_ID],
    category="chemistry",
    source=MP_SOURCE,
    objects=list(MOLECULE.objects),
    scenarios=list(MOLECULE.scenarios),
    network=True,
)
def molecule_ids_by_formula(formula: str, limit: int = 100) -> list[dict[str, Any]]:
    """Molecules summary search with ``formula=``."""
    if not 1 <= limit <= 1000:
        raise ToolInputError("limit must be between 1 and 1000")
    docs = mp_documents(
        "summary",
        {
            "formula": _molecule_formula(formula),
            "_fields": "molecule_id,formula_alphabetical,charge,spin_multiplicity",
            "_limit": limit,
        },
        root="molecules",
    )
    return [
        {
            "molecule_id": d.get("molecule_id"),
            "formula": d.get("formula_alphabetical"),
            "charge": d.get("charge"),
            "spin_multiplicity": d.get("spin_multiplicity"),
        }
        for d in docs
    ]
