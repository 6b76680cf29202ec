<?php
defined( 'ABSPATH' ) || exit;

/**
 * The plugin's settings: one option, not autoloaded on every page since it holds secrets that only
 * the admin page, the widget and My Account read.
 */
final class Punchcard_Loyalty_Options {
	const NAME = 'punchcard_loyalty';

	const DEFAULTS = array(
		'url'             => '',
		'secret_key'      => '',
		'publishable_key' => '',
		'widget_secret'   => '',
		'organization_id' => '',
		'store_id'        => '',
		'webhooks'        => array(),
		// The WooCommerce REST key this plugin created for Punchcard (0: the admin entered their own).
		'rest_key_id'     => 0,
		'store_settings'  => null,
		'settings_read'   => 0,
	);

	public static function all(): array {
		$saved = get_option( self::NAME, array() );
		return array_merge( self::DEFAULTS, is_array( $saved ) ? $saved : array() );
	}

	public static function get( string $name ) {
		return self::all()[ $name ];
	}

	public static function update( array $changes ): void {
		$all = array_merge( self::all(), $changes );
		if ( false === get_option( self::NAME ) ) {
			add_option( self::NAME, $all, '', 'no' );
		} else {
			update_option( self::NAME, $all );
		}
	}

	/** The widget needs the URL, the publishable key and the widget secret; nothing else. */
	public static function widget_ready(): bool {
		$o = self::all();
		return '' !== $o['url'] && '' !== $o['publishable_key'] && '' !== $o['widget_secret'];
	}

	public static function connected(): bool {
		$o = self::all();
		return '' !== $o['store_id'] && '' !== $o['secret_key'] && '' !== $o['url'];
	}
}
