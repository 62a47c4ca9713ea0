// Filler tools for the tiers experiment: plausible neighbours of a builder's tools that pad a
// flat tool list to 47, the size at which production fleets see models write calls as text.
// They are shown to the model in the `flat` layout only and never execute.

const FILLER_NAMES = [
  'crm_search_contacts',
  'send_email',
  'create_calendar_event',
  'translate_text',
  'get_weather',
  'search_web',
  'query_database',
  'create_invoice',
  'resize_image',
  'compress_assets',
  'run_lighthouse',
  'check_dns',
  'purchase_domain',
  'configure_cdn',
  'create_ticket',
  'post_to_chat',
  'summarize_document',
  'generate_sitemap',
  'validate_html',
  'minify_css',
  'optimize_images',
  'create_form',
  'add_analytics',
  'set_redirects',
  'manage_ssl',
  'backup_site',
  'export_pdf',
  'schedule_post',
] as const;

export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export const FILLER_TOOLS: readonly AnthropicToolDefinition[] = FILLER_NAMES.map((name) => ({
  name,
  description: `${name.replaceAll('_', ' ')} (an integration of the hosting platform).`,
  input_schema: {
    type: 'object',
    properties: { target: { type: 'string', description: 'What to act on' } },
    required: ['target'],
    additionalProperties: false,
  },
}));
