"""Inlining the scalar body into the host quick tier's entry on the IR text, without LLVM's inliner."""

from __future__ import annotations

import re

from llvmlite import ir

#: a block name llvmlite writes without quotes
_SIMPLE_LABEL = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*$")
#: a static stack slot (its operands are types and constants only), after renaming
_ALLOCA = re.compile(r'^  %"(?:[^"\\]|\\.)*" = alloca [^%]*$')
#: a local name llvmlite did not quote (or a numbered one): not copied as text
_UNQUOTED_LOCAL = re.compile(r'%(?!")')


def inline_body_text(text: str, entry: str, body: ir.Function) -> str | None:
    """``text`` (llvmlite's module with ``body`` as its only definition) and ``entry``
    (which calls ``body`` once) as one module whose entry holds a renamed copy of the
    body, as LLVM's inliner would make it; None when the body is not that simple (other
    definitions, a non-void return, dynamic stack slots, names llvmlite does not quote).

    The body's locals and labels get a ``b.`` prefix and its parameters become the call's
    arguments; ``ret void`` branches to the rest of the calling block (``<label>.done``);
    stack slots move to the entry block, where the inliner would put them."""
    start = text.find("\ndefine ")
    if start < 0 or text.find("\ndefine ", start + 1) >= 0:
        return None
    open_at = text.find("\n{\n", start)
    close_at = text.find("\n}\n", open_at)
    if open_at < 0 or close_at < 0:
        return None
    call_at = entry.find(f"  call void @{ir_name(body.name)}(")
    if call_at < 0:
        return None
    call_end = entry.index("\n", call_at)
    call_args = entry[entry.index("(", call_at) + 1:entry.rindex(")", call_at, call_end)]
    args = [a.rsplit(" ", 1)[1] for a in call_args.split(", ")]
    if len(args) != len(body.args):
        return None
    params = {arg.name: value for arg, value in zip(body.args, args)}
    block = entry.rindex("\n", 0, entry.rindex(":\n", 0, call_at)) + 1
    label = entry[block:entry.index(":\n", block)]
    done = f"{label}.done"
    code = "\n" + text[open_at + 3:close_at]
    labels = [blk.name for blk in body.blocks]
    if (not isinstance(body.function_type.return_type, ir.VoidType) or not labels
            or _UNQUOTED_LOCAL.search(code)
            or not all(_SIMPLE_LABEL.match(n) and f"\n{n}:\n" in code for n in labels)):
        return None
    # plain replacements, no per-match Python: every local gets the prefix, then the
    # parameters become the call's arguments, label definitions are renamed and each
    # return (a void function's: ``ret void``) branches to the rest of the calling block
    code = code.replace('%"', '%"b.')
    for name, value in params.items():
        code = code.replace(f'%"b.{name}"', value)
    for n in labels:
        code = code.replace(f"\n{n}:\n", f'\n"b.{n}":\n')
    code = code[1:].replace("  ret void", f"  br label %{done}")
    slots = ""
    if " alloca " in code:  # stack slots go to the entry block, as the inliner puts them
        kept = []
        for line in code.split("\n"):
            if " alloca " in line:
                if not _ALLOCA.match(line):
                    return None
                slots += line + "\n"
            else:
                kept.append(line)
        code = "\n".join(kept)
    code, pred = _merged_blocks(code, f'"b.{labels[0]}"', label, done)
    before, after = entry[:call_at], entry[call_end:]
    if pred != label:  # the entry's phis naming the calling block (not the body's own)
        before = before.replace(f", %{label}]", f", %{pred}]")
        after = after.replace(f", %{label}]", f", %{pred}]")
    entry = before + code + after
    if slots:
        first_block = entry.index(":\n") + 2
        entry = entry[:first_block] + slots + entry[first_block:]
    end = text.find("\n", close_at + 1)
    return text[:start + 1] + text[end + 1:] + entry


def _merged_blocks(code: str, first: str, label: str, done: str) -> tuple[str, str]:
    """The renamed body ``code`` (its first block ``first``) as it replaces the call in
    block ``label``, whose rest becomes block ``done``: (the text, the block the rest of
    the calling block ends up in, which the phis after it must name).

    Straight-line joins are not kept as blocks: the body's entry block (never branched to)
    goes on the calling block, the lowering's lone branch from it to the next block goes
    when it is that block's only way in, and a body that returns once, at its end, goes
    on into the rest of the calling block.  Codegen at O0 pays per block (the fast
    register allocator spills and reloads at every boundary)."""
    head = first + ":\n"
    if not code.startswith(head) or "%" + first in code:
        return f"  br label %{first}\n{code}\n{done}:", done
    code = code[len(head):]
    m = _LONE_BRANCH.match(code)
    if m:
        nxt = m.group(1)
        phis = code.count(f", %{nxt}]")  # phis naming it as a predecessor name ``label`` then
        if code.count("%" + nxt) == 1 + phis:
            code = code[m.end():]
            if phis:
                code = code.replace(f", %{nxt}]", f", %{label}]")
    tail = f"\n  br label %{done}"
    if not code.endswith(tail) or code.count(f"%{done}") != 1:  # returns meet in ``done``
        return f"{code}\n{done}:", done
    code = code[:-len(tail)]
    lasts = _LABEL_LINE.findall(code)
    return code, lasts[-1] if lasts else label


#: the lowering's branch from its entry block to the next block, which follows it
_LONE_BRANCH = re.compile(r'  br label %("b\.(?:[^"\\]|\\.)*")\n\1:\n')
#: a block's label line in the renamed body
_LABEL_LINE = re.compile(r'^("b\.(?:[^"\\]|\\.)*"):$', re.M)


def ir_name(name: str) -> str:
    return '"' + name.replace("\\", "\\5C").replace('"', "\\22") + '"'
