"""Prompt templates.

The four prompts of the paper's Appendix I (active tool description, rerank and score,
experience rules, reusable skills) are reproduced as written; the others (difficulty,
skill match, planning, argument extraction, summary, critique, ontology completion,
baseline planners, reflection) follow the same style; the answer judge follows the
frame of Appendix D. Templates use
`str.format` fields.
"""

from __future__ import annotations

SYSTEM = "You are a science expert."

# -- Appendix I --------------------------------------------------------------------------

ACTIVE_REQUEST = """You need to describe the tool capabilities required for a scientific task.
Experience:
{experience_section}
Task:
{question}
Previous Error (if any):
{error_text}
[IMPORTANT RULE]:
1. Each tool capability must be an atomic computational primitive, used only to derive one property or perform one transformation. It must not merge multiple properties or operations, nor include decision logic such as comparison, filtering, or aggregation.
2. Use the fewest and most direct steps for task analysis. If a single tool capability can directly produce the target result, do not introduce redundant preprocessing, intermediate transformations, or repeated computations. Each type of property should be computed only once.
3. If the task involves state or representation transformation, tool capabilities must follow data-form evolution, ensuring causal coherence between steps without skipping intermediate forms.
4. Tool descriptions should be generic capability descriptions and must not include specific substance names, numerical values, candidate answers, task conclusions, or instantiated information.
5. If the task involves multiple substances, sequences, or scientific objects, describe only the tool capabilities required for processing one object; do not introduce cross-object comparison or selection logic.
6. Use goal-oriented backward reasoning by first determining the final output internally, then inferring the required inputs and tool capabilities, and finally outputting only the tool capability descriptions.
7. Each tool description must be highly concise, with no more than 15 English words.
Now analyze the given task and list all required tool capabilities.
The required output format is as follows:
(1) tool description 1 (2) tool description 2 …
Do not output any additional explanation."""

RERANK = """Complete the following two-step task.
Task Requirement:
{tool_request}
Task Constraints:
Category={target_category}{expected_input}
Candidate Tools:
{candidates_text}
Step 1: Analyze each candidate tool based on its Function description, Input type, Output type, and Category. Select the best-matching tool as top-1 and the second-best tool as top-2.
Step 2: Score the selected top-1 and top-2 tools according to the following criteria:
1. known_top1_feasibility (0.0–1.0): the overall feasibility of top-1.
• 1.0: Function fully matches, with aligned I/O and Category.
• 0.75: Function strongly matches, with minor I/O or Category mismatch.
• 0.5: Function partially matches, with moderate I/O or Category mismatch.
• 0.25: Function is weakly relevant, with clear I/O or Category mismatch.
• 0.0: Function is completely mismatched.
2. known_margin: the rationale for prioritizing top-1 over top-2.
• 1.0: top-1 is clearly better than top-2.
• 0.75: top-1 is slightly better than top-2.
• 0.5: top-1 and top-2 are comparable.
• 0.25: top-2 is slightly better than top-1.
• 0.0: top-2 is clearly better than top-1.
3. ontology_alignment_score (0.0–1.0): the overall ontology-level alignment between top-1 and the task.
• 1.0: Category and I/O types are fully aligned.
• 0.75: Category matches, with minor I/O type mismatch.
• 0.5: Category matches but I/O types differ, or I/O matches but Category differs.
• 0.25: Category and I/O both differ but remain partially relevant.
• 0.0: Category or I/O types are completely mismatched.
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"top1": "ToolName1", "top2": "ToolName2", "known_top1_feasibility": F, "known_margin": M, "ontology_alignment_score": O}}"""

EXPERIENCE = """Based on the diagnosis and the rules, generate highly reusable experience rules.
Question:
{question}
Diagnosis:
{diagnosis}
Please generate the following fields:
1. general_prompt: One general principle applicable to scientific tool planning.
2. domain: Strictly choose one from the following: biology, chemistry, materials.
3. domain_prompt: A robust tool mapping rule targeting the diagnosed error. The core expression must follow: “When requiring [specific scientific context/constraint], select a tool that provides [specific functional capability].”
[RULE]:
1. All rules must provide clear and actionable operational guidance.
2. Limit each rule to 25 words.
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"general_prompt": "1 universal actionable rule", "domain": "biology/chemistry/materials", "domain_prompt": "domain-specific rule"}}"""

SKILL = """Given a specific task and its successfully executed tool chain, extract one standardized and reusable skill.
Task:
{question}
Tool Chain:
{tool_path}
Core Extraction Criteria:
1. Avoid over-abstraction: preserve specific scientific properties.
2. Remove concrete parameters: do not include numerical values, thresholds, filtering conditions, or specific substance names.
3. Skill naming: the key Ni should use short snake_case and reflect only the property/function combination.
4. Skill description: the key Zi must be a coherent sequence of atomic computational primitives. Use connectives to form one fluent description within 20 words.
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"Ni": "property_combination_name", "Zi": "A cohesive English sentence describing the property extraction pipeline."}}"""

# -- the rest of the workflow --------------------------------------------------------------

CRITIQUE = """Compare two trajectories for the same scientific tool-use task: a failed baseline and a successful exploration. Identify the critical divergence in tool selection or tool-chain construction and explain why the baseline failed.
Question:
{question}
Failed trajectory:
{failed}
Successful trajectory:
{succeeded}
Output one short diagnostic paragraph (at most 80 words) naming the wrong or missing tool capability and the capability that fixed it."""

DIFFICULTY = """Estimate the difficulty of a scientific tool-use task before planning it.
Task:
{question}
Count the distinct tool operations the task needs (estimated_tool_count) and the scientific entities (molecules, sequences, materials, candidates) it involves (entity_count).
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"estimated_tool_count": N, "entity_count": M}}"""

SKILL_MATCH = """Decide whether a stored skill solves a new scientific task exactly as it is, with the same tool chain.
Task:
{question}
Skill: {name}: {description}
Tool chain: {chain}
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"match": true or false}}"""

PLAN = """Plan the tool chain for a scientific task. Think step by step about which operations the task needs, in execution order, then choose one tool for each operation from the tools below. Use only listed tool names.
Task:
{question}
{experience_block}Known tools:
{known_tools}
Unknown tools (sparse descriptions; use one only when no known tool fits):
{unknown_tools}
{error_block}End with the chain in valid JSON format: {{"tool_chain": ["ToolName1", "ToolName2"]}}"""

PLAN_DIRECT = """Choose the tool chain for a scientific task from the tools below, in execution order. Use only listed tool names. Do not explain.
Task:
{question}
Known tools:
{known_tools}
Unknown tools (sparse descriptions; use one only when no known tool fits):
{unknown_tools}
Output only valid JSON: {{"tool_chain": ["ToolName1", "ToolName2"]}}"""

GAPS = """Think step by step about which tool operations a scientific task needs, in execution order, and which known tool performs each one.
Task:
{question}
Known tools:
{known_tools}
For operations that no known tool performs, describe the missing capability in at most 15 words.
End with valid JSON: {{"tool_chain": ["KnownTool1", "..."], "missing": ["capability description", "..."]}}"""

ARGUMENTS = """Extract the arguments for one step of a scientific tool chain.
Task:
{question}
Tool: {tool}
Description: {description}
Input types: {inputs}
Argument schema (JSON Schema): {schema}
Previous steps:
{previous}
{error_block}Call the tool once per entity the task needs at this step; use earlier outputs where the tool consumes them.
Strictly output valid JSON only: {{"calls": [{{"argument_name": "value"}}]}}"""

SUMMARY = """Answer a scientific question from the results of the tools that were run for it.
Question:
{question}
Tool results:
{results}
Give a brief justification, then the final answer on its own last line as "Answer: ...". For multiple-choice questions answer with the option letter; for numeric answers give the number."""

ONTOLOGY = """Complete the ontology of a scientific tool from its sparse description and a successful use of it.
Tool: {name}
Sparse description: {sparse}
Interaction history:
{history}
Strictly output valid JSON only: {{"functionality": "one sentence", "inputs": ["input type"], "outputs": ["output type"], "category": "chemistry/biology/materials/general", "objects": ["applicable objects"], "scenarios": ["scientific scenarios"]}}"""

UNKNOWN_PICK = """Select the unknown tool that best provides a required capability, judging only from its sparse description and I/O types.
Task Requirement:
{tool_request}
Candidate Tools:
{candidates_text}
Strictly output valid JSON only: {{"top1": "ToolName"}}"""

REACT_SYSTEM = """You are a science expert solving a scientific task with tools. Work in a Thought-Action-Observation loop: think about what to do next, call one tool, read its result, and repeat. Call search_tools to discover additional (unknown) tools when none of your tools fits; the tools it finds become callable. When you have what you need, reply without a tool call and end with "Answer: ..."."""

REFLECT = """You attempted a scientific tool-use task and did not succeed.
Task:
{question}
Your attempt:
{trajectory}
Problem: {problem}
In at most 3 sentences, diagnose the mistake (wrong tool, wrong argument, missing step) and state a concrete plan for the next attempt."""

# -- Appendix D ---------------------------------------------------------------------------
# The paper's only judge prompt ("Prompt for Sample Quality Evaluation") judges a benchmark
# sample, not an answer. The answer judge keeps its system prompt, its frame ("Below are
# ... Please use the following rule to determine whether ..."), its closing rule and its
# output format word for word; only the objects shown and rules 1-3 are about answers.

JUDGE_SYSTEM = "You are a scientific evaluation expert."

JUDGE = """Below are a question, a reference answer, and a predicted answer. Please use the following rule to determine whether the predicted answer satisfies the quality standard.
[RULE]:
1. Check whether the predicted answer commits to one final answer rather than listing alternatives.
2. Check whether the predicted answer states the same result as the reference answer; wording, units and formatting may differ, and numbers must agree to the precision of the reference.
3. Check whether every part of a multi-part reference answer is matched by the predicted answer.
4. Judge as “No” if any condition fails; otherwise, “Yes”.
Question:
{question}
Reference answer:
{reference}
Predicted answer:
{predicted}
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"decision": "Yes / No", "reason": "brief explanation"}}"""

# -- Table A1 ablations (the paper names them but gives no prompts) ---------------------------

REWRITE = """Rewrite a scientific task as one search query for a tool retrieval system. Name the computations the task needs in generic terms; leave out substance names, numerical values and answer hints.
Task:
{question}
Output only the query, in at most 30 English words."""

DECOMPOSE = """Decompose a scientific task into the sub-questions that must be answered, in order, to solve it. Each sub-question asks for exactly one intermediate or final result.
Task:
{question}
The required output format is as follows:
(1) sub-question 1 (2) sub-question 2 …
Do not output any additional explanation."""

LLM_GATE = """Decide how to acquire the tool for one required capability of a scientific task: exploit the best tool of the known tool graph, or explore the unknown tools (which have only sparse descriptions).
Task Requirement:
{tool_request}
Known candidates (best first):
{candidates_text}
Scores: known_top1_feasibility={f:.2f}, known_margin={m:.2f}, ontology_alignment_score={s:.2f}, past success rate of unknown-tool exploration={p:.2f}
Choose "known" when the top-1 known tool provides the capability, "unknown" when no known tool does.
Strictly output the response in valid JSON format only. The required JSON format is as follows:
{{"action": "known or unknown"}}"""
