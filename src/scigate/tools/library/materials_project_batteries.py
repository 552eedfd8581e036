"""Materials Project insertion-electrode (battery) tools, by battery_id.

Each tool reads one field of an ``InsertionElectrodeDoc`` from
``/materials/insertion_electrodes/?battery_ids=<id>&_fields=...`` through the shared client
and factory of `materials_project`. A battery_id is the material_id of the framework
material followed by the working ion, e.g. ``mp-1234_Li``.
"""

from __future__ import annotations

from scigate.tools._vocabulary import check_value
from scigate.tools.library.materials_project import MATERIAL_ID, MPField, MPKey, register_mp_tools

ENDPOINT = "insertion_electrodes"


def clean_battery_id(battery_id: str) -> str:
    """A battery_id such as mp-1234_Li: lower-case material_id, capitalised working ion."""
    value = check_value("battery_id", battery_id if isinstance(battery_id, str) else "")
    material, ion = value.rsplit("_", 1)
    return f"{material.lower()}_{ion.capitalize()}"


BATTERY = MPKey(
    "battery_id",
    "battery_ids",
    clean_battery_id,
    "a battery electrode material",
    "materials",
    ("battery", "electrode", "Materials Project"),
    ("battery materials", "energy storage", "materials screening"),
)


def _b(name: str, what: str, field: str, output: str) -> MPField:
    return MPField(name, what, (field,), output, endpoint=ENDPOINT, key=BATTERY)


BATTERY_TABLE: list[MPField] = [
    _b("GetBatteryFormulaByBatteryId", "the battery formula", "battery_formula", "battery formula"),
    _b("GetWorkingIonByBatteryId", "the working ion", "working_ion", "working ion"),
    _b("GetMaxVoltageStepByBatteryId", "the maximum voltage step (V)", "max_voltage_step", "maximum voltage step"),
    _b("GetFrameworkByBatteryId", "the framework composition (without the working ion)", "framework", "framework of battery material"),
    _b("GetFrameworkFormulaByBatteryId", "the framework formula", "framework_formula", "framework formula"),
    _b("GetElementsByBatteryId", "the elements", "elements", "elements"),
    _b("GetNelementsByBatteryId", "the number of elements", "nelements", "number of elements"),
    _b("GetChemsysByBatteryId", "the chemical system", "chemsys", "chemical system"),
    _b("GetFormulaAnonymousByBatteryId", "the anonymous formula", "formula_anonymous", "anonymous formula"),
    _b("GetWarningsByBatteryId", "the warnings", "warnings", "warnings"),
    _b("GetFormulaChargeByBatteryId", "the formula of the charged state", "formula_charge", "charge formula"),
    _b("GetFormulaDischargeByBatteryId", "the formula of the discharged state", "formula_discharge", "discharge formula"),
    _b("GetEnergyVolumeByBatteryId", "the volumetric energy density (Wh/L)", "energy_vol", "energy volume"),
    _b("GetMaxDeltaVolumeBatteryId", "the maximum volume change (fraction)", "max_delta_volume", "maximum delta volume"),
    _b("GetAverageVoltageByBatteryId", "the average voltage (V)", "average_voltage", "average voltage"),
    _b("GetCapacityGravByBatteryId", "the gravimetric capacity (mAh/g)", "capacity_grav", "gravimetric capacity"),
    _b("GetCapacityVolByBatteryId", "the volumetric capacity (mAh/cm³)", "capacity_vol", "volumetric capacity"),
    _b("GetEnergyGravByBatteryId", "the gravimetric energy density (Wh/kg)", "energy_grav", "gravimetric energy"),
    _b("GetFracAChargeByBatteryId", "the atomic fraction of the working ion in the charged state", "fracA_charge", "charge fraction of A"),
    _b("GetStabilityChargeByBatteryId", "the energy above hull of the charged state (eV/atom)", "stability_charge", "charge stability"),
    _b("GetStabilityDischargeByBatteryId", "the energy above hull of the discharged state (eV/atom)", "stability_discharge", "discharge stability"),
    _b("GetIdChargeByBatteryId", "the material_id of the charged state", "id_charge", "charge id"),
    _b("GetIdDischargeByBatteryId", "the material_id of the discharged state", "id_discharge", "discharge id"),
    _b("GetHostStructureByBatteryId", "the host structure (pymatgen dict)", "host_structure", "host structure"),
    _b("GetAdjPairsByBatteryId", "the adjacent voltage-step pairs", "adj_pairs", "adj pairs"),
    _b("GetMaterialIdByBatteryId", "the material_ids of the electrode's entries", "material_ids", MATERIAL_ID),
    _b("GetEntriesCompositionSummaryByBatteryId", "the composition summary of the electrode's entries", "entries_composition_summary", "material composition summary"),
    _b("GetElectrodeObjectByBatteryId", "the pymatgen InsertionElectrode (as a dict)", "electrode_object", "electrode object"),
]  # fmt: skip

register_mp_tools(BATTERY_TABLE, __name__)
