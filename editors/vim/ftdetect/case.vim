" .case benchmark sources, compiled by casec.
autocmd BufRead,BufNewFile *.case setfiletype case
