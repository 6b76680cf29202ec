<?php
defined( 'ABSPATH' ) || exit;

/**
 * The Punchcard widget on the storefront for signed-in customers. The page gets a signature made
 * here, on the server, with the widget secret (which never reaches the browser), as the widget
 * documentation describes: lowercase hex HMAC-SHA256 of "publicKey:externalId:timestamp:member".
 * Guests get nothing.
 */
final class Punchcard_Loyalty_Widget {
	const HANDLE      = 'punchcard-loyalty-widget';
	const AJAX_ACTION = 'punchcard_loyalty_widget_auth';

	public static function register(): void {
		add_action( 'wp_enqueue_scripts', array( self::class, 'enqueue' ) );
		add_filter( 'script_loader_tag', array( self::class, 'load_async' ), 10, 2 );
		// A fresh signature for the widget when its session ends (the config's fetchAuth); signed-in only.
		add_action( 'wp_ajax_' . self::AJAX_ACTION, array( self::class, 'answer_auth' ) );
	}

	/**
	 * The member's id in Punchcard: the WooCommerce customer id (the WordPress user id), or the
	 * email when the store setting memberIdentifier says so, matching what the store's webhooks create.
	 */
	public static function external_id( WP_User $user ): string {
		return 'email' === Punchcard_Loyalty_Store::setting( 'memberIdentifier', 'id' ) ? (string) $user->user_email : (string) $user->ID;
	}

	/** The profile fields the widget creates the member with, as the exact JSON text that is signed. */
	public static function member_json( WP_User $user ): string {
		$profile = array();
		$name    = trim( $user->first_name . ' ' . $user->last_name );
		$name    = '' !== $name ? $name : (string) $user->display_name;
		if ( '' !== $name ) {
			$profile['name'] = mb_substr( $name, 0, 200 );
		}
		if ( is_email( $user->user_email ) ) {
			$profile['email'] = (string) $user->user_email;
		}
		return (string) wp_json_encode( (object) $profile, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE );
	}

	/**
	 * The signed claims for one customer: {publicKey, externalId, timestamp, member, signature}.
	 * The timestamp is in milliseconds, as Punchcard requires.
	 */
	public static function claims( WP_User $user, ?int $timestamp_ms = null ): array {
		$o          = Punchcard_Loyalty_Options::all();
		$timestamp  = $timestamp_ms ?? (int) floor( microtime( true ) * 1000 );
		$externalId = self::external_id( $user );
		$member     = self::member_json( $user );
		$signature  = hash_hmac( 'sha256', $o['publishable_key'] . ':' . $externalId . ':' . $timestamp . ':' . $member, $o['widget_secret'] );
		return array(
			'publicKey'  => $o['publishable_key'],
			'externalId' => $externalId,
			'timestamp'  => $timestamp,
			'member'     => $member,
			'signature'  => $signature,
		);
	}

	/** The X-Widget-Auth header value for these claims: base64 of their JSON, as widget.js sends it. */
	public static function auth_header( array $claims ): string {
		return base64_encode( (string) wp_json_encode( $claims ) );
	}

	public static function enqueue(): void {
		if ( ! is_user_logged_in() || ! Punchcard_Loyalty_Options::widget_ready() ) {
			return;
		}
		$claims = self::claims( wp_get_current_user() );
		$url    = untrailingslashit( Punchcard_Loyalty_Options::get( 'url' ) );
		// widget.js is revalidated by the browser every few minutes, so a Punchcard upgrade reaches the shop by itself.
		wp_enqueue_script( self::HANDLE, $url . '/widget.js', array(), null, true );
		$config = wp_json_encode( array_merge( $claims, array( 'apiUrl' => $url ) ) );
		$ajax   = wp_json_encode( add_query_arg( 'action', self::AJAX_ACTION, admin_url( 'admin-ajax.php' ) ) );
		wp_add_inline_script(
			self::HANDLE,
			'window.PunchcardConfig = Object.assign(' . $config . ', { fetchAuth: function () {'
				. ' return fetch(' . $ajax . ', { credentials: "same-origin" }).then(function (r) { if (!r.ok) throw new Error("Punchcard: sign in again"); return r.json(); }); } });',
			'before'
		);
	}

	/** The widget's script need not hold up the page: it reads window.PunchcardConfig when it arrives. */
	public static function load_async( string $tag, string $handle ): string {
		return self::HANDLE === $handle ? str_replace( ' src=', ' async src=', $tag ) : $tag;
	}

	/** fetchAuth's answer: fresh claims and the header made of them, for the signed-in customer only. */
	public static function answer_auth(): void {
		if ( ! Punchcard_Loyalty_Options::widget_ready() ) {
			wp_send_json( array( 'message' => 'The loyalty widget is not configured.' ), 404 );
		}
		nocache_headers();
		$claims = self::claims( wp_get_current_user() );
		wp_send_json( array_merge( $claims, array( 'header' => self::auth_header( $claims ) ) ) );
	}
}
