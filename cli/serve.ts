import { Command } from 'commander';

// Placeholder replaced by the preview server (issue "Preview server").
export function serveCommand(): Command {
  return new Command('serve').description('serve a tree (see issue 3)');
}
