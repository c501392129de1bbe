/**
 * The translation framework's contract: hub and spoke through OpenAI chat completions. Each
 * API style has one codec (a pure module, no I/O) that turns its client requests into a chat
 * request and chat answers back into its own shape (client side), and chat requests into its
 * upstream requests and its upstream answers back into chat (upstream side). A request in a
 * style the chosen upstream speaks natively is never translated (the fast path).
 */
import { GatewayError } from '../errors.ts';

export type ApiStyle = 'openai' | 'responses' | 'anthropic' | 'gemini';

export const API_STYLES: readonly ApiStyle[] = ['openai', 'responses', 'anthropic', 'gemini'];

// --- the hub: chat completions, as OpenAI documents them -------------------------------------

export interface ChatTextPart {
  type: 'text';
  text: string;
}

export interface ChatImagePart {
  type: 'image_url';
  /** An https URL or a `data:<mime>;base64,…` URL. */
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export interface ChatAudioPart {
  type: 'input_audio';
  input_audio: { data: string; format: string };
}

export interface ChatFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}

export type ChatContentPart = ChatTextPart | ChatImagePart | ChatAudioPart | ChatFilePart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; /** JSON text. */ arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | ChatTextPart[]; name?: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | {
      role: 'assistant';
      content: string | ChatTextPart[] | null;
      tool_calls?: ChatToolCall[];
      refusal?: string | null;
      /** Reasoning text (DeepSeek's and LiteLLM's field), carried between styles that have one. */
      reasoning_content?: string;
      name?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string | ChatTextPart[] };

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; /** JSON Schema. */ parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  /** Up to 4 sequences. */
  stop?: string | string[];
  n?: number;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  tools?: ChatFunctionTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean | null; description?: string } };
  reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high';
  /**
   * The one built-in tool every style can carry: OpenAI chat's own web search field. Upstream
   * codecs map it (Anthropic's web search tool, Gemini's Google Search) or drop it.
   */
  web_search_options?: { search_context_size?: 'low' | 'medium' | 'high'; user_location?: unknown };
  user?: string;
  metadata?: Record<string, string>;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; audio_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number; audio_tokens?: number };
  /** Anthropic cache writes (LiteLLM's name), billed at their own price; not counted in cached_tokens. */
  cache_creation_input_tokens?: number;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface ChatResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; refusal?: string | null; reasoning_content?: string };
    finish_reason: ChatFinishReason | null;
  }[];
  usage?: ChatUsage;
}

export interface ChatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: 'assistant'; content?: string | null; tool_calls?: ChatToolCallDelta[]; refusal?: string | null; reasoning_content?: string };
    finish_reason: ChatFinishReason | null;
  }[];
  /** Only on the last chunk (`choices` empty), as `stream_options.include_usage` asks. */
  usage?: ChatUsage | null;
}

// --- errors ---------------------------------------------------------------------------------

/**
 * A request that cannot be read or carried into the target style: a 400 naming the field
 * (`param`, a path such as `input[2].content[0].type`), rendered in the route's style.
 */
export class TranslationError extends GatewayError {
  constructor(message: string, param: string, code = 'invalid_value') {
    super(400, message, { type: 'invalid_request_error', code, param });
    this.name = 'TranslationError';
  }
}

/** An upstream's error answer read into the gateway's terms (then rendered in the route's style). */
export interface UpstreamErrorInfo {
  message: string;
  /** The vendor's error type (`rate_limit_error`, `RESOURCE_EXHAUSTED` …) or `undefined`. */
  type?: string | undefined;
  code?: string | undefined;
  param?: string | null | undefined;
}

// --- options ----------------------------------------------------------------------------------

/** Built-in tools (web search, file search, code interpreter …) and fields that the target cannot carry. */
export interface ToolDropper {
  /**
   * Report a built-in tool left out (by its type, e.g. `file_search`); `param` names where it was.
   * Throws a TranslationError instead when the operator refuses dropped tools.
   */
  drop(tool: string, param: string): void;
  /**
   * Report a request field left out because the target model refuses it while the answer means
   * the same without it (e.g. `reasoning_effort` for a model without reasoning). Never refused.
   */
  dropField(field: string): void;
}

// --- the codecs -------------------------------------------------------------------------------

/** One request being translated for a client: what its answer must echo. */
export interface ClientRequest {
  /** The client's own body, as sent (a JSON object). */
  original: Record<string, unknown>;
  /** The chat request it became (its `model` is the public name the client asked for). */
  chat: ChatRequest;
}

/** Turns chat chunks into this style's SSE text (each piece complete events, `event:`/`data:` lines). */
export interface StreamEncoder {
  /** The answer's media type when it is not SSE (a Gemini stream without `alt=sse` is one JSON array). */
  readonly contentType?: string;
  push(chunk: ChatChunk): string;
  /** The closing events; `usage` when the chunks did not carry it. */
  end(usage?: ChatUsage): string;
  /** The style's error event, for a stream that failed after its first byte. */
  error(err: GatewayError): string;
}

/** One SSE event as read off the wire (`event` is absent when the upstream sends only `data:`). */
export interface SseEvent {
  event?: string | undefined;
  data: string;
}

/** Turns this style's upstream stream into chat chunks. */
export interface StreamDecoder {
  /** Chunks for one event (none for pings and bookkeeping events); throws GatewayError on an error event. */
  push(event: SseEvent): ChatChunk[];
  /** At the end of the upstream stream; throws GatewayError when it stopped before its final event. */
  end(): ChatChunk[];
}

export interface UpstreamRequest {
  /** The canonical path and query (`/v1/messages`, `/v1beta/models/x:streamGenerateContent?alt=sse`). */
  path: string;
  /** A JSON body (serialised by the framework). */
  body: unknown;
  /** Style headers (e.g. `anthropic-version`); never the credential. */
  headers: Record<string, string>;
}

/** The client side of a style: requests come in, answers go out. */
export interface ClientCodec {
  readonly style: ApiStyle;
  /** Read and check a client body (throws TranslationError naming the field). */
  toChatRequest(body: unknown, tools: ToolDropper): ChatRequest;
  fromChatResponse(chat: ChatResponse, request: ClientRequest): unknown;
  fromChatStream(request: ClientRequest): StreamEncoder;
  /** The error body of this style (status is set by the framework). */
  errorBody(err: GatewayError): unknown;
}

/** The upstream side of a style: chat requests go out, answers come back. */
export interface UpstreamCodec {
  readonly style: ApiStyle;
  /** Throws TranslationError for a field the style cannot carry; drops built-in tools through `tools`. */
  fromChatRequest(chat: ChatRequest, tools: ToolDropper): UpstreamRequest;
  /** Throws GatewayError (502 upstream_invalid_response) naming the path it missed. */
  toChatResponse(body: unknown): ChatResponse;
  toChatStream(): StreamDecoder;
  /** How this style's upstream is given our upstream credential. */
  authHeaders(apiKey: string): Record<string, string>;
  /** Read an error answer of this style. */
  readError(status: number, body: unknown): UpstreamErrorInfo;
}

export type StyleCodec = ClientCodec & UpstreamCodec;
