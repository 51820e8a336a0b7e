" Editing settings for .case files, matching the layout `casec fmt` writes.
if exists("b:did_ftplugin") | finish | endif
let b:did_ftplugin = 1

setlocal expandtab shiftwidth=2 softtabstop=2
setlocal commentstring=#\ %s comments=:#
let b:undo_ftplugin = "setlocal expandtab< shiftwidth< softtabstop< commentstring< comments<"
