/**
 * Generated from the service's GET /v1/openapi.json by packages/sdk/scripts/generate.ts.
 * Do not edit by hand: run `npm run generate -w @marionette/sdk` after changing the API.
 */

export interface paths {
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["get_v1_openapi_json"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/characters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The 100 most recent active Characters, newest first */
        get: operations["get_v1_characters"];
        put?: never;
        /** Create a Character from one image */
        post: operations["post_v1_characters"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/characters/{character_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One Character */
        get: operations["get_v1_characters_character_id"];
        put?: never;
        post?: never;
        /** Delete a Character */
        delete: operations["delete_v1_characters_character_id"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/characters/{character_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export URLs of a Character (vsplat, thumbnail) */
        get: operations["get_v1_characters_character_id_export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/characters/{character_id}/thumbnail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Redirect (302) to the Character's picture: its cut-out once ready, the uploaded image before (an addition to the interface) */
        get: operations["get_v1_characters_character_id_thumbnail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/motions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Motions of the account, newest first (cursor pages) */
        get: operations["get_v1_motions"];
        put?: never;
        /** Create a Motion from a driving video */
        post: operations["post_v1_motions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/motions/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import a Motion from a service template */
        post: operations["post_v1_motions_import"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/motions/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Motion templates that ship with the service */
        get: operations["get_v1_motions_templates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/motions/{motion_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One Motion */
        get: operations["get_v1_motions_motion_id"];
        put?: never;
        post?: never;
        /** Delete a Motion */
        delete: operations["delete_v1_motions_motion_id"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/motions/{motion_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export URLs of a Motion (MetaHuman and Mixamo rigs) */
        get: operations["get_v1_motions_motion_id_export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/motions/{motion_id}/thumbnail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The Motion's pose track drawn as stick figures, an SVG picture, once ready (an addition to the interface) */
        get: operations["get_v1_motions_motion_id_thumbnail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/renders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retired: list renders with GET /v1/videos */
        get: operations["get_v1_renders"];
        put?: never;
        /** Create a render: multipart direct form (200), JSON draft form with Idempotency-Key (202), or no body for the project defaults (200) */
        post: operations["post_v1_renders"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/renders/{render_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retired: read a render with GET /v1/videos/{id} */
        get: operations["get_v1_renders_render_id"];
        put?: never;
        post?: never;
        /** Retired: renders cannot be cancelled by clients */
        delete: operations["delete_v1_renders_render_id"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/renders/{render_id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Redirect (302) to the finished video; 409 before ready */
        get: operations["get_v1_renders_render_id_download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/videos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List videos (renders, H3 and character-animation), newest first */
        get: operations["get_v1_videos"];
        put?: never;
        /** Generate a video: H3 (vid_, native audio) or character animation (anim_, needs a driving video); answers the queued Video */
        post: operations["post_v1_videos"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/videos/{video_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a video or render by ID (render_, vid_, anim_); poll every 3-5 s until terminal */
        get: operations["get_v1_videos_video_id"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Balance of the calling account */
        get: operations["get_v1_credits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/credits/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's credit movements, newest first (an addition to the interface) */
        get: operations["get_v1_credits_ledger"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/renders/{render_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stream the events of a render (server-sent events): snapshot, queued, processing, progress, ready, failed, cancelled, heartbeat */
        get: operations["get_v1_renders_render_id_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/renders/prepare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Declare a render and get upload URLs for its media (then POST /v1/renders {draft_id}) */
        post: operations["post_v1_renders_prepare"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/render": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a render (Legacy; V1: POST /v1/renders). Cost: 1 credit per second of video.
         * @deprecated
         */
        post: operations["post_api_render"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/render/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Status of a render (Legacy; V1: GET /v1/videos/{video_id}). Readable without a credential unless the operator turned that off; a credential that is sent is checked.
         * @deprecated
         */
        get: operations["get_api_render_job_id"];
        put?: never;
        post?: never;
        /**
         * Cancel a queued or processing render (credits released), or read its terminal status (Legacy; no V1 equivalent)
         * @deprecated
         */
        delete: operations["delete_api_render_job_id"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/characters/preprocess": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a Character from one image (Legacy; V1: POST /v1/characters)
         * @deprecated
         */
        post: operations["post_api_characters_preprocess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/characters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Characters, newest first, by offset (Legacy; V1: GET /v1/characters)
         * @deprecated
         */
        get: operations["get_api_characters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/characters/{character_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One Character (Legacy)
         * @deprecated
         */
        get: operations["get_api_characters_character_id"];
        put?: never;
        post?: never;
        /**
         * Soft-delete a Character; renders that used it keep working (Legacy)
         * @deprecated
         */
        delete: operations["delete_api_characters_character_id"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scenes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Scenes, newest first, by offset (Legacy; V1: GET /v1/motions)
         * @deprecated
         */
        get: operations["get_api_scenes"];
        put?: never;
        /**
         * Create a scene from a driving video (Legacy; V1: POST /v1/motions). Direct uploads: at most 10 minutes and 100 MB.
         * @deprecated
         */
        post: operations["post_api_scenes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scenes/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a scene from a template, free (Legacy; V1: POST /v1/motions/import)
         * @deprecated
         */
        post: operations["post_api_scenes_import"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scenes/{scene_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One scene (Legacy; V1: GET /v1/motions/{motion_id})
         * @deprecated
         */
        get: operations["get_api_scenes_scene_id"];
        put?: never;
        post?: never;
        /**
         * Soft-delete a scene; renders that used it keep working (Legacy; V1: DELETE /v1/motions/{motion_id})
         * @deprecated
         */
        delete: operations["delete_api_scenes_scene_id"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Balance of the calling account (Legacy; V1: GET /v1/credits)
         * @deprecated
         */
        get: operations["get_api_credits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/extract/static-bin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Gaussian-splat extraction of a character (Legacy; V1: POST /v1/characters type=vsplat, then GET /v1/characters/{id}/export?download_type=vsplat)
         * @deprecated
         */
        post: operations["post_api_extract_static_bin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/extract/dynamic-fbx": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Skeletal animation (FBX) from a driving video (Legacy; V1: POST /v1/motions type=glb, then GET /v1/motions/{id}/export?download_type=fbx)
         * @deprecated
         */
        post: operations["post_api_extract_dynamic_fbx"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            error: {
                /** @enum {string} */
                code: "INVALID_REQUEST" | "DRIVING_VIDEO_REQUIRED" | "UNAUTHENTICATED" | "INVALID_CREDENTIAL" | "INSUFFICIENT_CREDITS" | "FORBIDDEN" | "RENDER_NOT_FOUND" | "CHARACTER_NOT_FOUND" | "MOTION_NOT_FOUND" | "MOTION_TEMPLATE_NOT_FOUND" | "DRAFT_NOT_FOUND" | "AVATAR_NOT_FOUND" | "ANIMATION_NOT_FOUND" | "DRAFT_ALREADY_CONSUMED" | "IDEMPOTENCY_KEY_REUSED" | "RENDER_NOT_CANCELLABLE" | "UPLOAD_REQUIRED" | "UPLOAD_EXPIRED" | "EXTRACTION_UNAVAILABLE" | "MOTION_NOT_READY" | "UNSUPPORTED_CONTENT_ENCODING" | "UNSUPPORTED_MEDIA" | "INVALID_CHARACTER" | "INVALID_MOTION" | "UPLOAD_MISMATCH" | "CONTENT_POLICY_VIOLATION" | "EXTRACTION_FAILED" | "RATE_LIMITED" | "INTERNAL_ERROR" | "SERVICE_BUSY";
                message: string;
                retryable: boolean;
                request_id: string | null;
                details: Record<string, never>;
                remediation: {
                    action?: string;
                    retry_after_ms?: number | null;
                };
            };
        };
        LegacyError: {
            detail: string | {
                /** @description CS-UORC01-003 not found, CS-UORC01-008 insufficient credits, CS-ORIV-002 not ready or parameter missing, CS-ORIV-001 other invalid request; RATE_LIMITED, SERVICE_BUSY, INTERNAL_ERROR as V1. */
                error_code: string;
                message: string;
                /** @description The V1 error code of the same failure. */
                v1_code?: string;
                field?: string;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    get_v1_openapi_json: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_characters: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                            name: string;
                            /** @description Null in list responses. */
                            progress: number | null;
                            /** @description Contains video_render once ready. */
                            capabilities: string[];
                            created_at: string | null;
                            completed_at: string | null;
                            /** @description Always null; failure shows in status and the sub-object. */
                            error: null;
                            type: string;
                            vsplat: {
                                status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                            } | null;
                            glb: {
                                status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                            } | null;
                        }[];
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    post_v1_characters: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description PNG, JPEG or WebP (by content); at most 20 MB and 4096 px per side by default.
                     */
                    image?: string;
                    /**
                     * Format: uri
                     * @description Public http(s) URL of the image; must stay reachable during processing.
                     */
                    image_url?: string;
                    /** @default  */
                    name?: string;
                    /**
                     * @description Price: render 1, vsplat 25 (30 with enhance), all 26 (31 with enhance).
                     * @default render
                     * @enum {string}
                     */
                    type?: "render" | "vsplat" | "all";
                    /**
                     * @description Only for vsplat/all.
                     * @default false
                     * @enum {string}
                     */
                    enhance?: "true" | "false" | "1" | "0";
                    /**
                     * @default body
                     * @enum {string}
                     */
                    joint_set?: "body" | "expression" | "full";
                    model_precision?: number;
                    /**
                     * @description Only for vsplat/all.
                     * @default false
                     * @enum {string}
                     */
                    filter_low_quality?: "true" | "false" | "1" | "0";
                    /**
                     * @description Generate the standard thumbnail.
                     * @default false
                     * @enum {string}
                     */
                    render_thumbnail?: "true" | "false" | "1" | "0";
                    /** @description Reusing a task_id of the account answers 409 IDEMPOTENCY_KEY_REUSED. */
                    task_id?: string;
                };
            };
        };
        responses: {
            /** @description Character or Motion */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        name: string;
                        /** @description Null in list responses. */
                        progress: number | null;
                        /** @description Contains video_render once ready. */
                        capabilities: string[];
                        created_at: string | null;
                        completed_at: string | null;
                        /** @description Always null; failure shows in status and the sub-object. */
                        error: null;
                        type: string;
                        vsplat: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                        glb: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_characters_character_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                character_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Character or Motion */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        name: string;
                        /** @description Null in list responses. */
                        progress: number | null;
                        /** @description Contains video_render once ready. */
                        capabilities: string[];
                        created_at: string | null;
                        completed_at: string | null;
                        /** @description Always null; failure shows in status and the sub-object. */
                        error: null;
                        type: string;
                        vsplat: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                        glb: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    delete_v1_characters_character_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                character_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @constant */
                        status: "deleted";
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_characters_character_id_export: {
        parameters: {
            query?: {
                download_type?: "vsplat";
            };
            header?: never;
            path: {
                character_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        vsplat_url: string | null;
                        thumbnail_url: string | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_characters_character_id_thumbnail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                character_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Location: a fresh signed URL of a PNG, JPEG or WebP picture. */
            302: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_motions: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                            name: string;
                            /** @description Null in list responses. */
                            progress: number | null;
                            /** @description Contains video_render once ready. */
                            capabilities: string[];
                            created_at: string | null;
                            completed_at: string | null;
                            /** @description Always null; failure shows in status and the sub-object. */
                            error: null;
                            type: string;
                            vsplat: {
                                status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                            } | null;
                            glb: {
                                status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                            } | null;
                        }[];
                        next_cursor: string | null;
                        has_more: boolean;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    post_v1_motions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description MP4, MOV or WebM (by content); at most 200 MB, 0.5-300 s, 64-4096 px per side by default.
                     */
                    video?: string;
                    /**
                     * Format: uri
                     * @description Public http(s) URL of the driving video; fetched by the worker.
                     */
                    video_url?: string;
                    /**
                     * Format: binary
                     * @description Alias of video.
                     */
                    motion_video?: string;
                    /**
                     * Format: uri
                     * @description Alias of video_url.
                     */
                    motion_video_url?: string;
                    /** @default  */
                    name?: string;
                    /**
                     * @default render
                     * @enum {string}
                     */
                    type?: "render" | "glb" | "all";
                    /**
                     * @description Temporal smoothing of the extracted track.
                     * @default true
                     * @enum {string}
                     */
                    enable_smoothing?: "true" | "false" | "1" | "0";
                    /** @description Default: the source rate, capped at 30. */
                    target_fps?: number;
                    /**
                     * @description Only for glb/all.
                     * @default body
                     * @enum {string}
                     */
                    joint_set?: "body" | "expression" | "full";
                    /** @description Reusing a task_id of the account answers 409 IDEMPOTENCY_KEY_REUSED. */
                    task_id?: string;
                };
            };
        };
        responses: {
            /** @description Character or Motion */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        name: string;
                        /** @description Null in list responses. */
                        progress: number | null;
                        /** @description Contains video_render once ready. */
                        capabilities: string[];
                        created_at: string | null;
                        completed_at: string | null;
                        /** @description Always null; failure shows in status and the sub-object. */
                        error: null;
                        type: string;
                        vsplat: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                        glb: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    post_v1_motions_import: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    template_id: string;
                    /** @description Default: the template's name. */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Character or Motion */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        name: string;
                        /** @description Null in list responses. */
                        progress: number | null;
                        /** @description Contains video_render once ready. */
                        capabilities: string[];
                        created_at: string | null;
                        completed_at: string | null;
                        /** @description Always null; failure shows in status and the sub-object. */
                        error: null;
                        type: string;
                        vsplat: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                        glb: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_motions_templates: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            name: string;
                            duration_s: number;
                        }[];
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_motions_motion_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                motion_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Character or Motion */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        name: string;
                        /** @description Null in list responses. */
                        progress: number | null;
                        /** @description Contains video_render once ready. */
                        capabilities: string[];
                        created_at: string | null;
                        completed_at: string | null;
                        /** @description Always null; failure shows in status and the sub-object. */
                        error: null;
                        type: string;
                        vsplat: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                        glb: {
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        } | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    delete_v1_motions_motion_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                motion_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @constant */
                        status: "deleted";
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_motions_motion_id_export: {
        parameters: {
            query: {
                download_type: "glb" | "fbx";
            };
            header?: never;
            path: {
                motion_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        metahuman_url: string | null;
                        mixamo_url: string | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_motions_motion_id_thumbnail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                motion_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description image/svg+xml */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_renders: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retired: use GET /v1/videos/{id} or GET /v1/videos. */
            405: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    post_v1_renders: {
        parameters: {
            query?: never;
            header?: {
                /** @description Required with the JSON draft form. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "multipart/form-data": {
                    /** @description ID of a ready Character. */
                    character_id?: string;
                    /**
                     * Format: binary
                     * @description Character image (PNG, JPEG or WebP).
                     */
                    image?: string;
                    /**
                     * Format: uri
                     * @description Public http(s) URL of a character image.
                     */
                    image_url?: string;
                    /** @description ID of a ready Motion. */
                    motion_id?: string;
                    /**
                     * Format: binary
                     * @description Driving video (MP4, MOV or WebM).
                     */
                    motion_video?: string;
                    /**
                     * Format: uri
                     * @description Public http(s) URL of a driving video.
                     */
                    motion_video_url?: string;
                    /**
                     * @default original
                     * @enum {string}
                     */
                    background_mode?: "original" | "solid" | "transparent";
                    /** @description R,G,B (0-255); required with solid, rejected otherwise. */
                    bg_color?: string;
                };
                "application/json": {
                    /** @description From POST /v1/renders/prepare. Send the Idempotency-Key header (1-255 characters). */
                    draft_id: string;
                };
            };
        };
        responses: {
            /** @description The created Render (status queued, progress 0). */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description render_..., vid_... or anim_... */
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        progress: number | null;
                        /** @description Set while processing. */
                        stage: "analyzing" | "rendering" | "finishing" | null;
                        video_url: string | null;
                        alpha_url: string | null;
                        created_at: string | null;
                        completed_at: string | null;
                        error: {
                            code: "INVALID_REQUEST" | "DRIVING_VIDEO_REQUIRED" | "UNAUTHENTICATED" | "INVALID_CREDENTIAL" | "INSUFFICIENT_CREDITS" | "FORBIDDEN" | "RENDER_NOT_FOUND" | "CHARACTER_NOT_FOUND" | "MOTION_NOT_FOUND" | "MOTION_TEMPLATE_NOT_FOUND" | "DRAFT_NOT_FOUND" | "AVATAR_NOT_FOUND" | "ANIMATION_NOT_FOUND" | "DRAFT_ALREADY_CONSUMED" | "IDEMPOTENCY_KEY_REUSED" | "RENDER_NOT_CANCELLABLE" | "UPLOAD_REQUIRED" | "UPLOAD_EXPIRED" | "EXTRACTION_UNAVAILABLE" | "MOTION_NOT_READY" | "UNSUPPORTED_CONTENT_ENCODING" | "UNSUPPORTED_MEDIA" | "INVALID_CHARACTER" | "INVALID_MOTION" | "UPLOAD_MISMATCH" | "CONTENT_POLICY_VIOLATION" | "EXTRACTION_FAILED" | "RATE_LIMITED" | "INTERNAL_ERROR" | "SERVICE_BUSY";
                            message: string;
                            retryable: boolean;
                            request_id: string | null;
                            details: {
                                [key: string]: unknown;
                            };
                            remediation: {
                                action: string;
                                retry_after_ms: number | null;
                            };
                        } | null;
                        /** @description H3 (vid_) only: the seed used. */
                        seed?: number;
                        /** @description H3 with enhance_mode=prompt, once generated: the expanded prompt. */
                        enhanced_prompt?: string;
                        links: {
                            /**
                             * Format: uri
                             * @description Retired path (answers 405); read the render with GET /v1/videos/{id}.
                             */
                            self: string;
                            /** Format: uri */
                            events: string;
                            /** Format: uri */
                            download: string;
                        };
                    };
                };
            };
            /** @description The created Render (status queued, progress 0). */
            202: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description render_..., vid_... or anim_... */
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        progress: number | null;
                        /** @description Set while processing. */
                        stage: "analyzing" | "rendering" | "finishing" | null;
                        video_url: string | null;
                        alpha_url: string | null;
                        created_at: string | null;
                        completed_at: string | null;
                        error: {
                            code: "INVALID_REQUEST" | "DRIVING_VIDEO_REQUIRED" | "UNAUTHENTICATED" | "INVALID_CREDENTIAL" | "INSUFFICIENT_CREDITS" | "FORBIDDEN" | "RENDER_NOT_FOUND" | "CHARACTER_NOT_FOUND" | "MOTION_NOT_FOUND" | "MOTION_TEMPLATE_NOT_FOUND" | "DRAFT_NOT_FOUND" | "AVATAR_NOT_FOUND" | "ANIMATION_NOT_FOUND" | "DRAFT_ALREADY_CONSUMED" | "IDEMPOTENCY_KEY_REUSED" | "RENDER_NOT_CANCELLABLE" | "UPLOAD_REQUIRED" | "UPLOAD_EXPIRED" | "EXTRACTION_UNAVAILABLE" | "MOTION_NOT_READY" | "UNSUPPORTED_CONTENT_ENCODING" | "UNSUPPORTED_MEDIA" | "INVALID_CHARACTER" | "INVALID_MOTION" | "UPLOAD_MISMATCH" | "CONTENT_POLICY_VIOLATION" | "EXTRACTION_FAILED" | "RATE_LIMITED" | "INTERNAL_ERROR" | "SERVICE_BUSY";
                            message: string;
                            retryable: boolean;
                            request_id: string | null;
                            details: {
                                [key: string]: unknown;
                            };
                            remediation: {
                                action: string;
                                retry_after_ms: number | null;
                            };
                        } | null;
                        /** @description H3 (vid_) only: the seed used. */
                        seed?: number;
                        /** @description H3 with enhance_mode=prompt, once generated: the expanded prompt. */
                        enhanced_prompt?: string;
                        links: {
                            /**
                             * Format: uri
                             * @description Retired path (answers 405); read the render with GET /v1/videos/{id}.
                             */
                            self: string;
                            /** Format: uri */
                            events: string;
                            /** Format: uri */
                            download: string;
                        };
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_renders_render_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                render_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retired: use GET /v1/videos/{id} or GET /v1/videos. */
            405: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    delete_v1_renders_render_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                render_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Retired: use GET /v1/videos/{id} or GET /v1/videos. */
            405: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_renders_render_id_download: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                render_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Location: a fresh signed URL of the video. */
            302: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_videos: {
        parameters: {
            query?: {
                status?: "queued" | "processing" | "ready" | "failed" | "cancelled";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description render_..., vid_... or anim_... */
                            id: string;
                            status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                            progress: number | null;
                            /** @description Set while processing. */
                            stage: "analyzing" | "rendering" | "finishing" | null;
                            video_url: string | null;
                            alpha_url: string | null;
                            created_at: string | null;
                            completed_at: string | null;
                            error: {
                                code: "INVALID_REQUEST" | "DRIVING_VIDEO_REQUIRED" | "UNAUTHENTICATED" | "INVALID_CREDENTIAL" | "INSUFFICIENT_CREDITS" | "FORBIDDEN" | "RENDER_NOT_FOUND" | "CHARACTER_NOT_FOUND" | "MOTION_NOT_FOUND" | "MOTION_TEMPLATE_NOT_FOUND" | "DRAFT_NOT_FOUND" | "AVATAR_NOT_FOUND" | "ANIMATION_NOT_FOUND" | "DRAFT_ALREADY_CONSUMED" | "IDEMPOTENCY_KEY_REUSED" | "RENDER_NOT_CANCELLABLE" | "UPLOAD_REQUIRED" | "UPLOAD_EXPIRED" | "EXTRACTION_UNAVAILABLE" | "MOTION_NOT_READY" | "UNSUPPORTED_CONTENT_ENCODING" | "UNSUPPORTED_MEDIA" | "INVALID_CHARACTER" | "INVALID_MOTION" | "UPLOAD_MISMATCH" | "CONTENT_POLICY_VIOLATION" | "EXTRACTION_FAILED" | "RATE_LIMITED" | "INTERNAL_ERROR" | "SERVICE_BUSY";
                                message: string;
                                retryable: boolean;
                                request_id: string | null;
                                details: {
                                    [key: string]: unknown;
                                };
                                remediation: {
                                    action: string;
                                    retry_after_ms: number | null;
                                };
                            } | null;
                            /** @description H3 (vid_) only: the seed used. */
                            seed?: number;
                            /** @description H3 with enhance_mode=prompt, once generated: the expanded prompt. */
                            enhanced_prompt?: string;
                        }[];
                        /** @description Pass as cursor for the next page; null on the last page. */
                        next_cursor: string | null;
                        has_more: boolean;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    post_v1_videos: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "multipart/form-data": {
                    /** @enum {string} */
                    mode?: "h3" | "animate";
                    /**
                     * @description Names the H3 mode (integrations send {"model":"h3","prompt":...}).
                     * @enum {string}
                     */
                    model?: "h3";
                    /** @description Required in h3 mode; optional in animate mode. */
                    prompt?: string;
                    /** @description Same inputs and seed give the same video; random when absent. */
                    seed?: number;
                    /** @default false */
                    watermark?: boolean;
                    /**
                     * @description h3: high spends more time; same price.
                     * @default low
                     * @enum {string}
                     */
                    quality?: "low" | "high";
                    /** @default 5 */
                    duration_s?: number;
                    /**
                     * @description The short side: 480, 768, 1080, 1440 (2k), 2160 (4k).
                     * @default 768p
                     * @enum {string}
                     */
                    resolution?: "480p" | "768p" | "1080p" | "2k" | "4k";
                    /**
                     * @default 16:9
                     * @enum {string}
                     */
                    aspect_ratio?: "16:9" | "9:16" | "1:1" | "4:3" | "3:4" | "21:9";
                    /** Format: binary */
                    first_frame_image?: string;
                    /** Format: uri */
                    first_frame_image_url?: string;
                    /**
                     * Format: binary
                     * @description Only together with a first frame.
                     */
                    last_frame_image?: string;
                    /** Format: uri */
                    last_frame_image_url?: string;
                    /**
                     * @default off
                     * @enum {string}
                     */
                    enhance_mode?: "off" | "prompt";
                    /** @description Ordered; repeat the multipart field. */
                    target_tags?: string[];
                    /** Format: binary */
                    character_image?: string;
                    /** Format: uri */
                    character_image_url?: string;
                    character_id?: string;
                    /** Format: binary */
                    driving_video?: string;
                    /** Format: uri */
                    driving_video_url?: string;
                    motion_id?: string;
                };
                "application/json": {
                    /** @enum {string} */
                    mode?: "h3" | "animate";
                    /**
                     * @description Names the H3 mode (integrations send {"model":"h3","prompt":...}).
                     * @enum {string}
                     */
                    model?: "h3";
                    /** @description Required in h3 mode; optional in animate mode. */
                    prompt?: string;
                    /** @description Same inputs and seed give the same video; random when absent. */
                    seed?: number;
                    /** @default false */
                    watermark?: boolean;
                    /**
                     * @description h3: high spends more time; same price.
                     * @default low
                     * @enum {string}
                     */
                    quality?: "low" | "high";
                    /** @default 5 */
                    duration_s?: number;
                    /**
                     * @description The short side: 480, 768, 1080, 1440 (2k), 2160 (4k).
                     * @default 768p
                     * @enum {string}
                     */
                    resolution?: "480p" | "768p" | "1080p" | "2k" | "4k";
                    /**
                     * @default 16:9
                     * @enum {string}
                     */
                    aspect_ratio?: "16:9" | "9:16" | "1:1" | "4:3" | "3:4" | "21:9";
                    /** Format: binary */
                    first_frame_image?: string;
                    /** Format: uri */
                    first_frame_image_url?: string;
                    /**
                     * Format: binary
                     * @description Only together with a first frame.
                     */
                    last_frame_image?: string;
                    /** Format: uri */
                    last_frame_image_url?: string;
                    /**
                     * @default off
                     * @enum {string}
                     */
                    enhance_mode?: "off" | "prompt";
                    /** @description Ordered; repeat the multipart field. */
                    target_tags?: string[];
                    /** Format: binary */
                    character_image?: string;
                    /** Format: uri */
                    character_image_url?: string;
                    character_id?: string;
                    /** Format: binary */
                    driving_video?: string;
                    /** Format: uri */
                    driving_video_url?: string;
                    motion_id?: string;
                };
            };
        };
        responses: {
            /** @description Render-shaped video object (no links). */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description render_..., vid_... or anim_... */
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        progress: number | null;
                        /** @description Set while processing. */
                        stage: "analyzing" | "rendering" | "finishing" | null;
                        video_url: string | null;
                        alpha_url: string | null;
                        created_at: string | null;
                        completed_at: string | null;
                        error: {
                            code: "INVALID_REQUEST" | "DRIVING_VIDEO_REQUIRED" | "UNAUTHENTICATED" | "INVALID_CREDENTIAL" | "INSUFFICIENT_CREDITS" | "FORBIDDEN" | "RENDER_NOT_FOUND" | "CHARACTER_NOT_FOUND" | "MOTION_NOT_FOUND" | "MOTION_TEMPLATE_NOT_FOUND" | "DRAFT_NOT_FOUND" | "AVATAR_NOT_FOUND" | "ANIMATION_NOT_FOUND" | "DRAFT_ALREADY_CONSUMED" | "IDEMPOTENCY_KEY_REUSED" | "RENDER_NOT_CANCELLABLE" | "UPLOAD_REQUIRED" | "UPLOAD_EXPIRED" | "EXTRACTION_UNAVAILABLE" | "MOTION_NOT_READY" | "UNSUPPORTED_CONTENT_ENCODING" | "UNSUPPORTED_MEDIA" | "INVALID_CHARACTER" | "INVALID_MOTION" | "UPLOAD_MISMATCH" | "CONTENT_POLICY_VIOLATION" | "EXTRACTION_FAILED" | "RATE_LIMITED" | "INTERNAL_ERROR" | "SERVICE_BUSY";
                            message: string;
                            retryable: boolean;
                            request_id: string | null;
                            details: {
                                [key: string]: unknown;
                            };
                            remediation: {
                                action: string;
                                retry_after_ms: number | null;
                            };
                        } | null;
                        /** @description H3 (vid_) only: the seed used. */
                        seed?: number;
                        /** @description H3 with enhance_mode=prompt, once generated: the expanded prompt. */
                        enhanced_prompt?: string;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_videos_video_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                video_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Render-shaped video object (no links). */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description render_..., vid_... or anim_... */
                        id: string;
                        status: "queued" | "processing" | "ready" | "failed" | "cancelled";
                        progress: number | null;
                        /** @description Set while processing. */
                        stage: "analyzing" | "rendering" | "finishing" | null;
                        video_url: string | null;
                        alpha_url: string | null;
                        created_at: string | null;
                        completed_at: string | null;
                        error: {
                            code: "INVALID_REQUEST" | "DRIVING_VIDEO_REQUIRED" | "UNAUTHENTICATED" | "INVALID_CREDENTIAL" | "INSUFFICIENT_CREDITS" | "FORBIDDEN" | "RENDER_NOT_FOUND" | "CHARACTER_NOT_FOUND" | "MOTION_NOT_FOUND" | "MOTION_TEMPLATE_NOT_FOUND" | "DRAFT_NOT_FOUND" | "AVATAR_NOT_FOUND" | "ANIMATION_NOT_FOUND" | "DRAFT_ALREADY_CONSUMED" | "IDEMPOTENCY_KEY_REUSED" | "RENDER_NOT_CANCELLABLE" | "UPLOAD_REQUIRED" | "UPLOAD_EXPIRED" | "EXTRACTION_UNAVAILABLE" | "MOTION_NOT_READY" | "UNSUPPORTED_CONTENT_ENCODING" | "UNSUPPORTED_MEDIA" | "INVALID_CHARACTER" | "INVALID_MOTION" | "UPLOAD_MISMATCH" | "CONTENT_POLICY_VIOLATION" | "EXTRACTION_FAILED" | "RATE_LIMITED" | "INTERNAL_ERROR" | "SERVICE_BUSY";
                            message: string;
                            retryable: boolean;
                            request_id: string | null;
                            details: {
                                [key: string]: unknown;
                            };
                            remediation: {
                                action: string;
                                retry_after_ms: number | null;
                            };
                        } | null;
                        /** @description H3 (vid_) only: the seed used. */
                        seed?: number;
                        /** @description H3 with enhance_mode=prompt, once generated: the expanded prompt. */
                        enhanced_prompt?: string;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_credits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Credits that can still be spent (open reservations already taken out). 1 credit = $0.01. */
                        balance: number;
                        /** @description Credits held by renders in progress. */
                        reserved: number;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_credits_ledger: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description led_... (opaque) */
                            id: string;
                            /** @description grant: credits added; reserve/settle/release: a render or video holds credits, is charged the final amount, or gives the rest back; charge/refund: flat-price assets. */
                            kind: "grant" | "charge" | "refund" | "reserve" | "settle" | "release";
                            /** @description The render, video, character, motion or grant the movement belongs to. */
                            resource_id: string;
                            /** @description Signed change of the spendable balance, in credits. */
                            amount: number;
                            /** @description Signed change of the reserved credits. */
                            reserved_delta: number;
                            note: string | null;
                            /** Format: date-time */
                            created_at: string;
                        }[];
                        /** @description Pass as cursor for the next page; null on the last page. */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    get_v1_renders_render_id_events: {
        parameters: {
            query?: never;
            header?: {
                /** @description Resume after this event (its event_id) */
                "Last-Event-ID"?: string;
            };
            path: {
                render_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream; charset=utf-8: `id`, `event` and JSON `data` frames; closes after a terminal event */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    post_v1_renders_prepare: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description ID of a ready Character. */
                    character_id?: string;
                    /** @description Declaration of a character image to be uploaded with PUT to the returned URL. */
                    image?: {
                        /**
                         * @description Declared type of the character image; the bytes are checked by content.
                         * @enum {string}
                         */
                        content_type: "image/png" | "image/jpeg" | "image/webp";
                        /** @description Exact size of the bytes that will be PUT. */
                        size_bytes: number;
                        /** @description Hex sha256 of the bytes; checked when given. */
                        sha256?: string;
                    };
                    /** @description Public http(s) URL of a character image. */
                    image_url?: string;
                    /** @description ID of a ready Motion. */
                    motion_id?: string;
                    /** @description Declaration of a driving video to be uploaded with PUT to the returned URL. */
                    motion_video?: {
                        /**
                         * @description Declared type of the driving video; the bytes are checked by content.
                         * @enum {string}
                         */
                        content_type: "video/mp4" | "video/quicktime" | "video/webm";
                        /** @description Exact size of the bytes that will be PUT. */
                        size_bytes: number;
                        /** @description Hex sha256 of the bytes; checked when given. */
                        sha256?: string;
                    };
                    /** @description Public http(s) URL of a driving video. */
                    motion_video_url?: string;
                    /** @enum {string} */
                    background_mode?: "original" | "solid" | "transparent";
                    /** @description R,G,B (0-255); required with solid, rejected otherwise. */
                    bg_color?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        draft_id: string;
                        /** Format: date-time */
                        expires_at: string;
                        uploads: {
                            /** @enum {string} */
                            field: "image" | "motion_video";
                            /** @constant */
                            method: "PUT";
                            /** @description Send the bytes with HTTP PUT here, with `headers`, before `expires_at`. */
                            url: string;
                            headers: {
                                [key: string]: string;
                            };
                            /** Format: date-time */
                            expires_at: string;
                        }[];
                    };
                };
            };
            /** @description Error envelope */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    post_api_render: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description Character image (PNG, JPEG or WebP).
                     */
                    ref_image?: string;
                    /** Format: uri */
                    ref_image_url?: string;
                    /** @description A ready Character (char_...). */
                    character_id?: string;
                    /**
                     * Format: binary
                     * @description Driving video; at most 10 minutes and 100 MB.
                     */
                    driving_video?: string;
                    /** Format: uri */
                    driving_video_url?: string;
                    /** @description A ready scene (mot_...). */
                    scene_id?: string;
                    /** @description Accepted and recorded; no effect. */
                    model?: string;
                    /**
                     * @default original
                     * @enum {string}
                     */
                    background_mode?: "original" | "solid" | "transparent";
                    /** @description R,G,B; only with background_mode=solid. */
                    bg_color?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job_id: string;
                        /** @description queued at creation */
                        status: string;
                        /** @description asset (character_id + scene_id), direct (uploads or URLs), mixed */
                        mode: string;
                        /** Format: date-time */
                        enqueued_at: string;
                        /** @description /api/render/{job_id} */
                        poll_url: string;
                        /** @description /api/render/{job_id} */
                        status_url: string;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    get_api_render_job_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job_id: string;
                        status: "queued" | "processing" | "complete" | "failed" | "cancelled";
                        mode: string;
                        progress: number | null;
                        /** Format: date-time */
                        enqueued_at: string;
                        completed_at: string | null;
                        cdn_url: string | null;
                        mask_cdn_url: string | null;
                        error_code: string | null;
                        error: string | null;
                        poll_url: string;
                        status_url: string;
                        /** @description DELETE only: whether this call cancelled the render. */
                        cancelled?: boolean;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    delete_api_render_job_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job_id: string;
                        status: "queued" | "processing" | "complete" | "failed" | "cancelled";
                        mode: string;
                        progress: number | null;
                        /** Format: date-time */
                        enqueued_at: string;
                        completed_at: string | null;
                        cdn_url: string | null;
                        mask_cdn_url: string | null;
                        error_code: string | null;
                        error: string | null;
                        poll_url: string;
                        status_url: string;
                        /** @description DELETE only: whether this call cancelled the render. */
                        cancelled?: boolean;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    post_api_characters_preprocess: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** Format: binary */
                    image?: string;
                    /** Format: binary */
                    ref_image?: string;
                    /** Format: uri */
                    image_url?: string;
                    /** Format: uri */
                    ref_image_url?: string;
                    /** @default  */
                    name?: string;
                    /** @description Accepted and recorded; no effect. */
                    model?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        status: "pending" | "processing" | "ready" | "failed";
                        created_at: string | null;
                        completed_at: string | null;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    get_api_characters: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        characters: {
                            id: string;
                            name: string;
                            status: "pending" | "processing" | "ready" | "failed";
                            created_at: string | null;
                            completed_at: string | null;
                        }[];
                        /** @description Number of characters in this page. */
                        total: number;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    get_api_characters_character_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                character_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        status: "pending" | "processing" | "ready" | "failed";
                        created_at: string | null;
                        completed_at: string | null;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    delete_api_characters_character_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                character_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    get_api_scenes: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        scenes: {
                            scene_id: string;
                            /** @description Same as scene_id. */
                            id: string;
                            name: string;
                            status: "pending" | "processing" | "ready" | "failed";
                            created_at: string | null;
                            completed_at: string | null;
                        }[];
                        /** @description Number of scenes in this page. */
                        total: number;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    post_api_scenes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** Format: binary */
                    driving_video?: string;
                    /** Format: binary */
                    video?: string;
                    /** Format: uri */
                    driving_video_url?: string;
                    /** Format: uri */
                    video_url?: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        scene_id: string;
                        /** @description The scene is its own job: poll GET /api/scenes/{scene_id}. */
                        job_id: string;
                        status: "pending" | "processing" | "ready" | "failed";
                        message: string;
                        name: string;
                        /** Format: date-time */
                        created_at: string;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    post_api_scenes_import: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A template ID (GET /v1/motions/templates). */
                    template_uuid: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        scene_id: string;
                        /** @description The scene is its own job: poll GET /api/scenes/{scene_id}. */
                        job_id: string;
                        status: "pending" | "processing" | "ready" | "failed";
                        message: string;
                        name: string;
                        /** Format: date-time */
                        created_at: string;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    get_api_scenes_scene_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                scene_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        scene_id: string;
                        /** @description Same as scene_id. */
                        id: string;
                        name: string;
                        status: "pending" | "processing" | "ready" | "failed";
                        created_at: string | null;
                        completed_at: string | null;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    delete_api_scenes_scene_id: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                scene_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    get_api_credits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Credits that can still be spent (same as balance). 1 credit = $0.01. */
                        credits: number;
                        balance: number;
                        /** @description Credits held by renders in progress. */
                        reserved: number;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    post_api_extract_static_bin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    character_id?: string;
                    /** Format: binary */
                    image?: string;
                    /** Format: binary */
                    ref_image?: string;
                    /** Format: uri */
                    image_url?: string;
                    /** Format: uri */
                    ref_image_url?: string;
                    name?: string;
                    /** @enum {string} */
                    render_thumbnail?: "true" | "false";
                    task_id?: string;
                    /** @description Accepted and recorded; the vsplat model choice is gone in V1. */
                    model?: string;
                    /** @description Accepted and ignored: gone in V1. */
                    fp?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        character_id: string;
                        status: string;
                        bin_url: string | null;
                        vsplat_url: string | null;
                        thumbnail_url: string | null;
                    } | {
                        /** @description The new asset ID; poll poll_url. */
                        job_id: string;
                        status: string;
                        message: string;
                        poll_url: string;
                        character_id?: string;
                        scene_id?: string;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
    post_api_extract_dynamic_fbx: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    scene_id?: string;
                    /** Format: binary */
                    driving_video?: string;
                    /** Format: binary */
                    video?: string;
                    /** Format: uri */
                    driving_video_url?: string;
                    /** Format: uri */
                    video_url?: string;
                    name?: string;
                    /** @enum {string} */
                    enable_smoothing?: "true" | "false";
                    target_fps?: number;
                    task_id?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        scene_id: string;
                        status: string;
                        fbx_url: string | null;
                        metahuman_url: string | null;
                        mixamo_url: string | null;
                    } | {
                        /** @description The new asset ID; poll poll_url. */
                        job_id: string;
                        status: string;
                        message: string;
                        poll_url: string;
                        character_id?: string;
                        scene_id?: string;
                    };
                };
            };
            /** @description Legacy error */
            default: {
                headers: {
                    /** @description The caller's X-Request-Id when valid, else a generated one; equals error.request_id. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LegacyError"];
                };
            };
        };
    };
}
