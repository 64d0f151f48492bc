"""The `toolcall` subcommands, one module each: its help line, whether it writes into the
checkout, its arguments (`add_arguments`) and its run (`run`). The command line (`cli`) lists
them in one table and knows nothing else of any of them."""
