from core.metrics.batch_summary import batch_summary
from core.presentation.summary import batch_summary_lines
from tests.metrics.test_batch_summary import batch


def test_the_command_lines_table_names_the_worst_batch_and_the_batches_that_fail():
    lines = batch_summary_lines(batch_summary([batch(88.0, 95.0, 0.30, True), batch(85.0, 97.0, 0.10, False)]))
    text = "\n".join(lines)
    assert "the mean over the 2 batches and the worst batch" in lines[0]
    assert "Hellinger Mean" in text and "86.5 / 100  85.0 / 100 (batch 2)" in text
    assert "1 of 2" in text and "Verdict: NOT READY TO SHARE. 1 of 2 batches miss a privacy target (Distance to " \
                                "closest): batch 2." in text
    partly = batch_summary_lines(batch_summary([batch(88.0, 95.0, 0.30, True)]))
    assert partly[-1].startswith("Verdict: MEETS EVERY TARGET ASSESSED. Every batch meets every privacy target "
                                 "assessed (1 of 1). Not assessed: linkability risk.")
    ready = batch_summary_lines(batch_summary([batch(88.0, 95.0, 0.30, True, linkability=1.0)]))
    assert ready[-1] == "Verdict: ready to share. Every batch meets every privacy target (1 of 1)."
