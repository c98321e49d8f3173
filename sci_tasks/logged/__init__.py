"""What runs logged, read for the commands that show it (sci-view, sci-agree): ``runs``
(each folder of lm-eval output as a ``Run``, through the one run-folder reader
``sci_tasks.run_folder``, and what its numbers are) and ``samples`` (one logged sample as
a reader shows it: its checks in the common form, values, prompt, images). Below both
commands, so neither imports the other for them."""
