// The experiments' `--model` option: repeatable, each value a model id or a comma list of them.

/** The models asked for, in order; `[undefined]` (the fleet's default model) when none was. */
export function modelListOption(values: readonly string[] | undefined): Array<string | undefined> {
  const models = (values ?? [])
    .flatMap((value) => value.split(','))
    .map((model) => model.trim())
    .filter((model) => model !== '');
  return models.length > 0 ? models : [undefined];
}
