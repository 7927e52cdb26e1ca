"""The sweep room: ``pfc sweep`` from a YAML spec to finished runs. ``spec`` reads and checks the spec, ``plan``
crosses it into named runs, ``index`` keeps ``sweep.json``, ``one_run`` does one run through the same runner as ``pfc
run``, ``ray_tasks`` hands the runs to Ray, and ``command`` is the sub-command tying them together. It sits above the
run stage and adds no way of running a model of its own."""
