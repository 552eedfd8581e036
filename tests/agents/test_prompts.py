"""The four Appendix I prompts match the paper word for word.

The paper texts below are copied from the arXiv HTML of SciToolAgent-Evo (Appendix I),
with the doubled math rendering of numbers ("1.01.0") undone. The HTML loses line
breaks and some spaces ("invalid JSONformat" is "in valid JSON format"), so prompts
and paper are compared with all whitespace removed.
"""

import re

import pytest

from scigate.agents import _prompts

PAPER = {
    "ACTIVE_REQUEST": (
        "You need to describe the tool capabilities required for a scientific task.Experi"
        "ence:{experience_section}Task:{question}Previous Error (if any):{error_text}[IMP"
        "ORTANT RULE]:1. Each tool capability must be an atomic computational primitive, "
        "used only to derive one property or perform one transformation. It must not merg"
        "e multiple properties or operations, nor include decision logic such as comparis"
        "on, filtering, or aggregation.2. Use the fewest and most direct steps for task a"
        "nalysis. If a single tool capability can directly produce the target result, do "
        "not introduce redundant preprocessing, intermediate transformations, or repeated"
        " computations. Each type of property should be computed only once.3. If the task"
        " involves state or representation transformation, tool capabilities must follow "
        "data-form evolution, ensuring causal coherence between steps without skipping in"
        "termediate forms.4. Tool descriptions should be generic capability descriptions "
        "and must not include specific substance names, numerical values, candidate answe"
        "rs, task conclusions, or instantiated information.5. If the task involves multip"
        "le substances, sequences, or scientific objects, describe only the tool capabili"
        "ties required for processing one object; do not introduce cross-object compariso"
        "n or selection logic.6. Use goal-oriented backward reasoning by first determinin"
        "g the final output internally, then inferring the required inputs and tool capab"
        "ilities, and finally outputting only the tool capability descriptions.7. Each to"
        "ol description must be highly concise, with no more than 15 English words.Now an"
        "alyze the given task and list all required tool capabilities.The required output"
        " format is as follows:(1) tool description 1 (2) tool description 2 …Do not outp"
        "ut any additional explanation."
    ),
    "RERANK": (
        "Complete the following two-step task.Task Requirement:{tool_request}Task Constra"
        "ints:Category={target_category}{expected_input}Candidate Tools:{candidates_text}"
        "Step 1:Analyze each candidate tool based on its Function description, Input type"
        ", Output type, and Category. Select the best-matching tool as top-1 and the seco"
        "nd-best tool as top-2.Step 2:Score the selected top-1 and top-2 tools according "
        "to the following criteria:1. known_top1_feasibility(0.0–1.0): the overall feasib"
        "ility of top-1.•1.0: Function fully matches, with aligned I/O and Category.•0.75"
        ": Function strongly matches, with minor I/O or Category mismatch.•0.5: Function "
        "partially matches, with moderate I/O or Category mismatch.•0.25: Function is wea"
        "kly relevant, with clear I/O or Category mismatch.•0.0: Function is completely m"
        "ismatched.2. known_margin: the rationale for prioritizing top-1 over top-2.•1.0:"
        " top-1 is clearly better than top-2.•0.75: top-1 is slightly better than top-2.•"
        "0.5: top-1 and top-2 are comparable.•0.25: top-2 is slightly better than top-1.•"
        "0.0: top-2 is clearly better than top-1.3. ontology_alignment_score(0.0–1.0): th"
        "e overall ontology-level alignment between top-1 and the task.•1.0: Category and"
        " I/O types are fully aligned.•0.75: Category matches, with minor I/O type mismat"
        "ch.•0.5: Category matches but I/O types differ, or I/O matches but Category diff"
        "ers.•0.25: Category and I/O both differ but remain partially relevant.•0.0: Cate"
        "gory or I/O types are completely mismatched.Strictly output the response invalid"
        ' JSONformat only. The requiredJSONformat is as follows:{"top1": "ToolName1","top'
        '2": "ToolName2","known_top1_feasibility": F,"known_margin": M,"ontology_alignmen'
        't_score": O}'
    ),
    "EXPERIENCE": (
        "Based on the diagnosis and the rules, generate highly reusable experience rules."
        "Question:{question}Diagnosis:{diagnosis}Please generate the following fields:1. "
        "general_prompt:One general principle applicable to scientific tool planning.2. d"
        "omain:Strictly choose one from the following: biology, chemistry, materials.3. d"
        "omain_prompt:A robust tool mapping rule targeting the diagnosed error.The core e"
        "xpression must follow:“When requiring [specific scientific context/constraint], "
        "select a tool that provides [specific functional capability].”[RULE]:1. All rule"
        "s must provide clear and actionable operational guidance.2. Limit each rule to 2"
        "5 words.Strictly output the response invalid JSONformat only. The requiredJSONfo"
        'rmat is as follows:{"general_prompt": "1 universal actionable rule","domain": "b'
        'iology/chemistry/materials","domain_prompt": "domain-specific rule"}'
    ),
    "SKILL": (
        "Given a specific task and its successfully executed tool chain, extract one stan"
        "dardized and reusable skill.Task:{question}Tool Chain:{tool_path}Core Extraction"
        " Criteria:1. Avoid over-abstraction: preserve specific scientific properties.2. "
        "Remove concrete parameters: do not include numerical values, thresholds, filteri"
        "ng conditions, or specific substance names.3. Skill naming: the key Ni should us"
        "e short snake_case and reflect only the property/function combination.4. Skill d"
        "escription: the key Zi must be a coherent sequence of atomic computational primi"
        "tives. Use connectives to form one fluent description within 20 words.Strictly o"
        "utput the response invalid JSONformat only. The requiredJSONformat is as follows"
        ':{"Ni": "property_combination_name","Zi": "A cohesive English sentence describin'
        'g the property extraction pipeline."}'
    ),
}


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("name", sorted(PAPER))
def test_appendix_i_prompt_is_verbatim(name):
    template = getattr(_prompts, name).replace("{{", "{").replace("}}", "}")
    assert _squash(template) == _squash(PAPER[name])


def test_system_prompt():
    assert _prompts.SYSTEM == "You are a science expert."


# Appendix D, "Prompt for Sample Quality Evaluation" (the paper's only judge prompt).
APPENDIX_D_SYSTEM = "You are a scientific evaluation expert."
APPENDIX_D = (
    "Below are a question, a reference tool chain, and the corresponding parameter. Plea"
    "se use the following rule to determine whether the sample satisfies the quality st"
    "andard.[RULE]:1. Check whether the question is clearly stated and free of obvious a"
    "mbiguity.2. Check whether tool_path covers the scientific operations required by th"
    "e question.3. Check whether the input-output dependencies between adjacent tools in"
    " tool_path are valid and can form an executable chain.4. Judge as “No” if any condi"
    "tion fails; otherwise, “Yes”.Question:{question}Reference tool chain:{tool_path}Par"
    "ameter:{parameter}Strictly output the response invalid JSONformat only. The require"
    'dJSONformat is as follows:{"decision": "Yes / No","reason": "brief explanation"}'
)


def test_answer_judge_keeps_the_appendix_d_frame_verbatim():
    """System prompt, frame, closing rule and output format are the paper's words; only
    the objects judged (answers instead of a tool chain) and rules 1-3 differ."""
    assert _prompts.JUDGE_SYSTEM == APPENDIX_D_SYSTEM
    judge = _squash(_prompts.JUDGE.replace("{{", "{").replace("}}", "}"))
    paper = _squash(APPENDIX_D)
    shared = [
        "Belowareaquestion,areference",
        "Pleaseusethefollowingruletodeterminewhetherthe",
        "satisfiesthequalitystandard.[RULE]:1.Checkwhetherthe",
        "4.Judgeas“No”ifanyconditionfails;otherwise,“Yes”.Question:{question}Reference",
        "StrictlyoutputtheresponseinvalidJSONformatonly.TherequiredJSONformatisasfollows:"
        '{"decision":"Yes/No","reason":"briefexplanation"}',
    ]
    for piece in shared:
        assert piece in paper and piece in judge, piece
    assert judge.endswith(shared[-1]) and paper.endswith(shared[-1])
