" Vim syntax file
" Language: .case (benchmark cases compiled by casec)
" Keys and values: grammar/case.pest; the field keys: src/resolve/schema.rs.

if exists("b:current_syntax") | finish | endif

syn case match
" Whole-file sync: text blocks span lines and files are small.
syn sync fromstart

" A name may hold `.` and `-` (std.everyday_assistance, TUJ-011), so word boundaries
" are spelled out instead of relying on 'iskeyword'.
let s:end = '\%([A-Za-z0-9_.-]\)\@!'
let s:start = '\%([A-Za-z0-9_.-]\)\@<!'
let s:key_at = '\%(\%(^\|[{;]\)\s*\)\@<='

syn keyword caseTodo contained TODO FIXME XXX NOTE
syn match caseComment "#.*$" contains=caseTodo,@Spell

syn match caseEscape contained +\\\%(["\\nrt]\|u{\x\{1,6}}\)+
syn region caseString start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ oneline contains=caseEscape
" Defined after caseString so that `"""` opens a text block, not an empty string.
syn region caseTextBlock start=+"""+ end=+"""+ contains=caseEscape,@Spell

exe 'syn match caseNumber "' . s:start . '-\?\d\+\%(\.\d\+\)\?' . s:end . '"'
exe 'syn match caseCaseId "' . s:start . '[A-Z][A-Z0-9]*-\d\+' . s:end . '"'
exe 'syn match caseOutcome "' . s:start . '\%(PASS\|FAIL\|NOT_TESTED\)' . s:end . '"'
exe 'syn match caseDimension "' . s:start . '\%(execution_and_evidence\|communication\|final_state\|recognition\|requirement\|artifact\|negative\|positive\|recovery\|goal\)' . s:end . '"'
exe 'syn match caseConstant "' . s:start . '\%(true\|false\|null\)' . s:end . '"'
syn match caseComma contained ","
syn match caseSeparator ";"

" Top-level statements: only outside blocks, so `category` in a case is a field key.
syn match caseDeclaration "^\%(suite\|tool\|category\|profile\|case\|schema\|shape\|world\)\>" nextgroup=caseDeclName skipwhite
syn match caseDeclName contained "[A-Za-z_][A-Za-z0-9_.-]*"

" Statement keys inside blocks: at the start of a line or after `{` or `;`. Later
" definitions win, so the generic key comes first.
exe 'syn match caseKey contained "' . s:key_at . '[A-Za-z_][A-Za-z0-9_.-]*"'
exe 'syn match caseFieldKey contained "' . s:key_at . '\%(incomplete_run_reporting\|official_complete_run\|ground_truth_policy\|category_pass_rate\|system_instruction\|expected_behavior\|overall_pass_rate\|design_reference\|unscripted_reply\|opening_message\|result_template\|check_negative\|check_positive\|why_it_matters\|communication\|does_not_know\|record_access\|system_prompt\|tool_behavior\|capabilities\|conversation\|human_review\|world_schema\|data_status\|description\|instruction\|permissions\|preferences\|side_effect\|background\|capability\|case_count\|clock_step\|created_on\|idempotent\|recurrence\|assistant\|dimension\|ends_when\|max_steps\|pass_rule\|situation\|argument\|artifact\|behavior\|check_on\|critical\|evidence\|followup\|language\|outcomes\|override\|recovery\|revision\|timezone\|adapter\|commits\|context\|outputs\|persona\|purpose\|request\|respond\|returns\|scoring\|service\|version\|create\|delete\|domain\|expect\|forbid\|refuse\|report\|result\|review\|update\|verify\|after\|allow\|asked\|check\|clock\|error\|facts\|final\|goals\|judge\|knows\|notes\|order\|reply\|shape\|style\|times\|tools\|world\|goal\|need\|read\|tags\|user\|when\)' . s:end . '"'
exe 'syn match caseFieldKey contained "' . s:key_at . '\%(profile\|category\)' . s:end . '" nextgroup=caseRefName skipwhite'
syn match caseRefName contained "[A-Za-z_][A-Za-z0-9_.-]*"
exe 'syn match caseCheckId contained "\%(\<check\s\+\)\@<=[A-Za-z]\+\d\+' . s:end . '"'

syn cluster caseValue contains=caseString,caseTextBlock,caseNumber,caseCaseId,caseOutcome,caseDimension,caseConstant,caseList,caseComment
syn region caseBlock matchgroup=caseBrace start="{" end="}" transparent fold contains=caseKey,caseFieldKey,caseCheckId,caseBlock,caseSeparator,@caseValue
syn region caseList matchgroup=caseBracket start="\[" end="\]" transparent contained contains=caseBlock,caseComma,@caseValue

hi def link caseComment Comment
hi def link caseTodo Todo
hi def link caseString String
hi def link caseTextBlock String
hi def link caseEscape SpecialChar
hi def link caseNumber Number
hi def link caseCaseId Constant
hi def link caseCheckId Constant
hi def link caseOutcome Constant
hi def link caseDimension Constant
hi def link caseConstant Boolean
hi def link caseDeclaration Keyword
hi def link caseDeclName Type
hi def link caseFieldKey Statement
hi def link caseKey Identifier
hi def link caseRefName Type
hi def link caseBrace Delimiter
hi def link caseBracket Delimiter
hi def link caseComma Delimiter
hi def link caseSeparator Delimiter

let b:current_syntax = "case"
