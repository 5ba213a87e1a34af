/**
 * `delivery-task branches`: the pickup branches, whose names are the valid `selectedBranch` values
 * (OpenAPI `listBranches`).
 */
import { TableWriter, textCell } from '../format.js';
import type { OperatorCommandSpec } from './command.js';

/** `branches`. */
export const branches: OperatorCommandSpec = {
  words: ['branches'],
  arguments: [],
  options: {},
  summary: 'list the pickup branches (the selectedBranch names)',
  details: ['--json: a JSON array of the branches, as the SDK normalises them ({ name, id?, … }).'],
  async run(context) {
    const list = await context.client.branches.list({ signal: context.signal });
    const { output } = context;
    if (output.json) {
      output.document(list);
      return;
    }
    const table = new TableWriter([{ title: 'name' }, { title: 'id' }, { title: 'address' }], (line) =>
      output.line(line),
    );
    for (const branch of output.redact(list)) {
      table.add([
        textCell(branch.name),
        textCell(branch.id),
        textCell((branch as Record<string, unknown>).address),
      ]);
    }
    table.end();
    if (list.length === 0) output.note('no branches');
  },
};
